// Runs the Spindle OpenTelemetry Collector distribution (infra/otel-collector) with one of its
// role configurations. The binary comes from infra/otel-collector/build.sh, a plain go build of
// the committed sources: after the build step (or a first run) Go's build cache makes it seconds.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Child } from "./child";
import { repoRoot } from "./gateway";

const collectorDir = join(repoRoot, "infra/otel-collector");
const binary = join(collectorDir, "bin/spindle-otelcol");

/**
 * Builds the distribution unless the binary is newer than every source (`npm run build -w
 * @spindle/infra` made it); otherwise Go's build cache leaves only the link to do.
 */
export function buildCollector(): string {
  const sources = readdirSync(join(collectorDir, "distribution")).map((f) => statSync(join(collectorDir, "distribution", f)).mtimeMs);
  if (!existsSync(binary) || statSync(binary).mtimeMs < Math.max(...sources)) {
    execFileSync("bash", [join(collectorDir, "build.sh"), binary], { stdio: ["ignore", "pipe", "inherit"] });
  }
  return binary;
}

/**
 * Builds the hostmetrics feed (apps/gateway/cmd/spindle-hostmetrics-feed), which only this test
 * runs, so `npm start` never builds it; `go build` is incremental, so a second call costs little.
 */
export function buildHostmetricsFeed(): string {
  const gatewayDir = join(repoRoot, "apps/gateway");
  const feed = join(gatewayDir, "bin/spindle-hostmetrics-feed");
  execFileSync("go", ["build", "-trimpath", "-o", feed, "./cmd/spindle-hostmetrics-feed"], {
    cwd: gatewayDir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return feed;
}

export class CollectorProcess {
  private child?: Child;
  readonly storageDir = mkdtempSync(join(tmpdir(), "spindle-otelcol-queue-"));
  output = "";

  /** `role` is a configuration file of infra/otel-collector; `ports`: OTLP, health, own metrics. */
  constructor(
    private readonly role: string,
    private readonly ports: { otlp: number; health: number; metrics: number },
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.ports.otlp}`;
  }

  async start(): Promise<void> {
    this.child = new Child(
      binary,
      ["--config", join(collectorDir, this.role)],
      {
        env: {
          ...process.env,
          ...this.env,
          SPINDLE_OTELCOL_STORAGE_DIR: this.storageDir,
          SPINDLE_OTELCOL_LISTEN: `127.0.0.1:${this.ports.otlp}`,
          SPINDLE_OTELCOL_HEALTH: `127.0.0.1:${this.ports.health}`,
          SPINDLE_OTELCOL_METRICS_HOST: "127.0.0.1",
          SPINDLE_OTELCOL_METRICS_PORT: String(this.ports.metrics),
        },
      },
      (chunk) => (this.output += chunk),
    );
    // health_check answers 200 once every pipeline is running.
    for (let i = 0; i < 600; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${this.ports.health}/`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the Collector (${this.role}) did not become healthy:\n${this.output}`);
  }

  async stop(): Promise<void> {
    await this.child?.stop();
  }
}
