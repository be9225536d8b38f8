// A process a test runs for a while: its output handed to the owner (kept for failure
// messages, across restarts), and a stop that sends SIGTERM and waits for it to exit (the
// services under test shut down gracefully); kill() is for fault tests that must not let them.
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";

export class Child {
  private readonly process: ChildProcess;

  constructor(command: string, args: readonly string[], options: SpawnOptions, onOutput: (chunk: string) => void) {
    this.process = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    this.process.stdout!.on("data", (d) => onOutput(String(d)));
    this.process.stderr!.on("data", (d) => onOutput(String(d)));
  }

  /** Sends `signal` (SIGKILL: no shutdown code runs) and waits for the process to be gone. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    const exited = new Promise((r) => this.process.on("exit", r));
    this.process.kill(signal);
    await exited;
  }

  async stop(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    const exited = new Promise((r) => this.process.on("exit", r));
    this.process.kill("SIGTERM");
    await exited;
  }
}
