// Runs the real worker (apps/worker/src/main.ts through tsx, so no build step is needed).
import { Child } from "./child";
import { repoRoot } from "./gateway";

export class WorkerProcess {
  private child?: Child;
  output = "";

  /** `env` adds to or overrides the worker's environment (notification settings, the rollup interval). */
  constructor(
    private readonly databaseUrl: string,
    private readonly env: Record<string, string> = {},
  ) {}

  start(): void {
    this.child = new Child(
      process.execPath,
      ["--import", "tsx", "apps/worker/src/main.ts"],
      {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: this.databaseUrl, SPINDLE_ROLLUP_INTERVAL_SECONDS: "0", ...this.env },
      },
      (chunk) => (this.output += chunk),
    );
  }

  async stop(): Promise<void> {
    await this.child?.stop();
  }

  /** SIGKILL: the worker dies wherever it is, mid-step included; nothing of it runs on. */
  async kill(): Promise<void> {
    await this.child?.kill("SIGKILL");
  }
}
