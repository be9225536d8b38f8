// Runs the real worker (apps/worker/src/main.ts through tsx, so no build step is needed).
import { ChildProcess, spawn } from "node:child_process";
import { repoRoot } from "./gateway";

export class WorkerProcess {
  private process?: ChildProcess;
  output = "";

  constructor(private readonly databaseUrl: string) {}

  start(): void {
    this.process = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: this.databaseUrl, SPINDLE_ROLLUP_INTERVAL_SECONDS: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.process.stdout!.on("data", (d) => (this.output += d));
    this.process.stderr!.on("data", (d) => (this.output += d));
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.on("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
}
