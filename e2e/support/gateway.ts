// Runs the real gateway binary built by `turbo run build`, serving the agent binaries that the
// agent's build puts in agent/bin.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Child } from "./child";

export const repoRoot = resolve(import.meta.dirname, "../..");

export class GatewayProcess {
  private child?: Child;
  output = "";

  /** `env` adds to the gateway's environment (e.g. SPINDLE_RELAY_CREDENTIALS). */
  constructor(
    readonly port: number,
    private readonly databaseUrl: string,
    private readonly env: Record<string, string> = {},
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = new Child(
      join(repoRoot, "apps/gateway/bin/spindle-gateway"),
      [],
      {
        env: {
          ...process.env,
          DATABASE_URL: this.databaseUrl,
          SPINDLE_GATEWAY_ADDR: `127.0.0.1:${this.port}`,
          SPINDLE_PUBLIC_URL: this.url,
          SPINDLE_AGENT_DIST_DIR: join(repoRoot, "agent/bin"),
          // Its signing key is generated here on the first start.
          SPINDLE_GATEWAY_STATE_DIR: mkdtempSync(join(tmpdir(), "spindle-gateway-state-")),
          ...this.env,
        },
      },
      (chunk) => (this.output += chunk),
    );
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(`${this.url}/healthz`);
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`gateway did not start:\n${this.output}`);
  }

  /** SIGKILL: the gateway dies wherever it is, mid-transaction included. */
  async kill(): Promise<void> {
    await this.child?.kill("SIGKILL");
  }

  async stop(): Promise<void> {
    await this.child?.stop();
  }
}
