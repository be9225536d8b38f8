// Installs and runs the real agent the way a user does: the one-liner from the console, piped
// to sh, but into a private root (SPINDLE_PREFIX) so tests never touch this machine's /etc.
import { execFile, execFileSync, execSync, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installCommand } from "../../apps/console/modules/enrollment/lib/install-command";
import { Child } from "./child";

export class InstalledAgent {
  readonly prefix: string;
  readonly binary: string;
  readonly config: string;
  readonly stateDir: string;
  private child?: Child;
  private machineIdFile?: string;
  private readonly binds: [source: string, target: string][] = [];
  private cgroupDir?: string;
  output = "";

  /** `base` is where the private root goes (a memory filesystem when a test spools thousands of batches). */
  constructor(base = tmpdir()) {
    this.prefix = mkdtempSync(join(base, "spindle-agent-root-"));
    this.binary = join(this.prefix, "usr/local/bin/spindle-agent");
    this.config = join(this.prefix, "etc/spindle/agent.yaml");
    this.stateDir = join(this.prefix, "var/lib/spindle");
  }

  /** The console's one-liner (apps/console/modules/enrollment/lib/install-command.ts) for a token. */
  static oneLiner(gatewayUrl: string, token: string): string {
    return installCommand(gatewayUrl, token);
  }

  /**
   * Runs the console's one-liner (`script=$(curl …) && printf … | sh -c "$script" … --token-stdin`)
   * into the prefix: the token still reaches install.sh on standard input. (The journey in
   * tests/spine.spec.ts runs it unedited, as root, in a private view of this host: support/host-root.ts.)
   */
  install(oneLiner: string): string {
    const [file, args] = this.installInvocation(oneLiner);
    return execFileSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  }

  /** install(), without blocking this process: for a test that serves part of the install itself. */
  async installAsync(oneLiner: string): Promise<string> {
    const [file, args] = this.installInvocation(oneLiner);
    return (await promisify(execFile)(file, args, { encoding: "utf8" })).stdout;
  }

  private installInvocation(oneLiner: string): [string, string[]] {
    const command = oneLiner.replace(/\|\s*sh -c "\$script"/, `| SPINDLE_PREFIX=${this.prefix} sh -c "$script"`);
    if (command === oneLiner) throw new Error(`unexpected install command: ${oneLiner}`);
    return this.withMachineId("/bin/sh", ["-c", command]);
  }

  /**
   * Makes this agent a machine of its own: every machine identity file reads `id` for its
   * enrolment and runs (a private mount namespace binds a file over them, so this host's files
   * are untouched). Needs root, as several agents on one host otherwise share one server.
   */
  useMachineId(id: string): void {
    this.machineIdFile = join(this.prefix, "machine-id");
    writeFileSync(this.machineIdFile, `${id}\n`);
  }

  /**
   * Shows `source` at `target` to this agent only (its private mount namespace, so root only):
   * several agents on one host can then manage "the same" path in one policy, each its own files.
   */
  bindMount(source: string, target: string): void {
    this.binds.push([source, target]);
  }

  /** Starts the agent inside this memory cgroup (its directory under /sys/fs/cgroup), so its limit is the agent's. */
  useCgroup(dir: string): void {
    this.cgroupDir = dir;
  }

  private withMachineId(file: string, args: string[]): [string, string[]] {
    if (!this.machineIdFile && this.binds.length === 0 && !this.cgroupDir) return [file, args];
    const ids = this.machineIdFile
      ? ["/etc/machine-id", "/var/lib/dbus/machine-id"].filter((path) => existsSync(path)).map((path) => [this.machineIdFile!, path])
      : [];
    const mounts = [...ids, ...this.binds].map(([source, target]) => `mount --bind '${source}' '${target}'`).join(" && ");
    const namespaced: [string, string[]] = [
      "unshare",
      ["--mount", "--propagation", "private", "/bin/sh", "-c", `${mounts || "true"} && exec "$@"`, "sh", file, ...args],
    ];
    if (!this.cgroupDir) return namespaced;
    // Join the cgroup first: everything the agent then starts and charges is inside it.
    return ["/bin/sh", ["-c", `echo $$ > '${this.cgroupDir}/cgroup.procs' && exec "$@"`, "sh", namespaced[0], ...namespaced[1]]];
  }

  uninstall(gatewayUrl: string): string {
    return execSync(`curl -fsSL ${gatewayUrl}/install.sh | SPINDLE_PREFIX=${this.prefix} sh -s -- --uninstall`, {
      encoding: "utf8",
      shell: "/bin/sh",
    });
  }

  configMode(): number {
    return statSync(this.config).mode & 0o777;
  }

  /** Shortens the sampling interval so tests see several intervals quickly. */
  setInterval(seconds: number): void {
    const yaml = readFileSync(this.config, "utf8");
    const updated = /^interval:.*$/m.test(yaml)
      ? yaml.replace(/^interval:.*$/m, `interval: ${seconds}s`)
      : `${yaml.trimEnd()}\ninterval: ${seconds}s\n`;
    writeFileSync(this.config, updated, { mode: 0o600 });
  }

  /** Shortens the miss-ratio curves' window (`collectors.mrc.window`), so a test sees curves within a minute; restart to apply. */
  setMRCWindow(seconds: number): void {
    const yaml = readFileSync(this.config, "utf8");
    // `spindle-agent enroll` writes every collector, the curves' as `mrc: {}`.
    const updated = yaml.replace(/^(\s+)mrc: \{\}$/m, `$1mrc: {window: ${seconds}s}`);
    if (updated === yaml) throw new Error(`agent.yaml has no "mrc: {}" collector line to set the window on:\n${yaml}`);
    writeFileSync(this.config, updated, { mode: 0o600 });
  }

  /** Switches collectors off in agent.yaml (`spindle-agent enroll` writes each as `name: {}`); restart to apply. */
  disableCollectors(names: readonly string[]): void {
    let yaml = readFileSync(this.config, "utf8");
    for (const name of names) {
      const updated = yaml.replace(new RegExp(`^(\\s+)${name}: \\{\\}$`, "m"), `$1${name}: {enabled: false}`);
      if (updated === yaml) throw new Error(`agent.yaml has no "${name}: {}" collector line to switch off:\n${yaml}`);
      yaml = updated;
    }
    writeFileSync(this.config, yaml, { mode: 0o600 });
  }

  /** Lets the console's proof runs write in these directories (agent.yaml proof_runs.paths); restart to apply. */
  allowProofRunPaths(paths: string[]): void {
    const yaml = readFileSync(this.config, "utf8").replace(/^proof_runs:.*\n(?:[ ].*\n)*/m, "");
    writeFileSync(this.config, `${yaml.trimEnd()}\nproof_runs:\n  paths:\n${paths.map((p) => `    - ${JSON.stringify(p)}\n`).join("")}`, {
      mode: 0o600,
    });
  }

  start(): void {
    const [file, args] = this.withMachineId(this.binary, ["run", "--config", this.config]);
    this.child = new Child(file, args, {}, (chunk) => (this.output += chunk));
  }

  async stop(): Promise<void> {
    await this.child?.stop();
  }

  /** `status --json` exits 1 for a stopped or unhealthy agent but still prints the status. */
  status(): AgentStatus {
    const result = spawnSync(this.binary, ["status", "--json", "--config", this.config], { encoding: "utf8" });
    if (!result.stdout.trim()) throw new Error(`spindle-agent status printed nothing: ${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.prefix, { recursive: true, force: true });
  }
}

/** The subset of `spindle-agent status --json` the tests read. */
export interface AgentStatus {
  serverId: string;
  spool: { batches: number; bytes: number; droppedBatches: number; heldBatches?: number; writeError?: string };
  lastBatchSeq: number;
  intervalSeconds: number;
  delivery: { lastDeliveredSeq?: number; lastError?: string };
}

export async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${lastError}` : ""}`);
}
