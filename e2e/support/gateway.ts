// Runs the real gateway binary built by `turbo run build`, serving the agent binaries that the
// agent's build puts in agent/bin.
import { ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "../..");

export class GatewayProcess {
  private process?: ChildProcess;
  output = "";

  constructor(readonly port: number, private readonly databaseUrl: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.process = spawn(join(repoRoot, "apps/gateway/bin/spindle-gateway"), [], {
      env: { ...process.env, DATABASE_URL: this.databaseUrl, SPINDLE_GATEWAY_ADDR: `127.0.0.1:${this.port}`,
        SPINDLE_PUBLIC_URL: this.url, SPINDLE_AGENT_DIST_DIR: join(repoRoot, "agent/bin") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.process.stdout!.on("data", (d) => (this.output += d));
    this.process.stderr!.on("data", (d) => (this.output += d));
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

  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.on("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
}
