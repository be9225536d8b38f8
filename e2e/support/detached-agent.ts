// The agent running detached where systemd does not run (install.sh prints the command; an
// operator's init script or supervisor-less host starts it like this): in a session of its own,
// its output appended to the log file and its pid in the pid file (both under the agent's private
// root, named in agent.yaml's upgrade section so its restarts after an upgrade use the same files).
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { InstalledAgent } from "./agent";

export class DetachedAgent {
  readonly pidFile: string;
  readonly logFile: string;

  constructor(readonly agent: InstalledAgent) {
    this.pidFile = join(agent.prefix, "run/spindle/agent.pid");
    this.logFile = join(agent.prefix, "var/log/spindle/agent.log");
  }

  /** Names the detached files and the watchdog's bound in agent.yaml. */
  configureUpgrades(healthTimeoutSeconds: number): void {
    appendFileSync(
      this.agent.config,
      `upgrade:\n  pid_file: ${this.pidFile}\n  log_file: ${this.logFile}\n  health_timeout: ${healthTimeoutSeconds}s\n`,
    );
  }

  /** Starts it detached with the pid file that upgrade.restart "auto" recognises. */
  start(): number {
    execFileSync("/bin/sh", [
      "-c",
      `mkdir -p "$(dirname "$3")" "$(dirname "$4")" || exit 1
      cd / || exit 1
      setsid "$1" run --config "$2" >>"$3" 2>&1 </dev/null &
      echo $! >"$4"`,
      "spindle-start",
      this.agent.binary,
      this.agent.config,
      this.logFile,
      this.pidFile,
    ]);
    return this.pid()!;
  }

  pid(): number | undefined {
    if (!existsSync(this.pidFile)) return undefined;
    const pid = Number(readFileSync(this.pidFile, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  }

  /** Alive and running the installed binary (a pid can be reused). */
  running(pid: number): boolean {
    try {
      process.kill(pid, 0);
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  }

  /** What `spindle-agent version` of the installed binary says. */
  version(): string {
    return execFileSync(this.agent.binary, ["version"], { encoding: "utf8" }).trim();
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, "utf8") : "";
  }

  /** Stops the agent in the pid file (SIGTERM, then SIGKILL after 15 s). */
  async stop(): Promise<void> {
    const pid = this.pid();
    if (pid === undefined || !this.running(pid)) return;
    process.kill(pid, "SIGTERM");
    for (let i = 0; i < 150 && this.running(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (this.running(pid)) process.kill(pid, "SIGKILL");
  }
}
