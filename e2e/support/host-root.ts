// A private view of this host, for running the console's install command verbatim, as root or
// as a user with sudo: a mount namespace in which /etc, /usr/local, /var/lib, /var/log and /run
// are overlays on this host's own. The installer writes /usr/local/bin/spindle-agent,
// /etc/spindle, /var/lib/spindle, /var/log/spindle and /run/spindle exactly as it would on any
// server, and starts the agent there; the writes land in a scratch directory, so this host (and
// the journeys of other checkouts running beside this one) is untouched. Everything else is this
// host's: its kernel (eBPF), network, /proc, /sys, machine id, and no systemd. Root only.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const overlaid = ["/etc", "/usr/local", "/var/lib", "/var/log", "/run"];

export interface ShellRun {
  code: number;
  output: string;
}

export class HostRoot {
  readonly scratch = mkdtempSync(join(tmpdir(), "spindle-host-root-"));
  private holder?: ChildProcess;

  /** Why this cannot run here, or null. */
  static missing(): string | null {
    if (process.getuid?.() !== 0) return "running the install command as root in a private view of this host needs root";
    for (const tool of ["unshare", "nsenter", "runuser"]) {
      if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} (util-linux) is not installed`;
    }
    return null;
  }

  /**
   * Sets up the namespace. `noSudo` hides sudo from it (a failing stand-in over the binary, for
   * "root on a host without sudo": the installer must never call it then).
   */
  async start(options: { noSudo?: boolean } = {}): Promise<void> {
    const mounts = overlaid.map((dir, i) => {
      const upper = join(this.scratch, `upper-${i}`);
      const work = join(this.scratch, `work-${i}`);
      mkdirSync(upper);
      mkdirSync(work);
      return `mount -t overlay overlay -o lowerdir=${dir},upperdir=${upper},workdir=${work} ${dir}`;
    });
    const sudo = spawnSync("sh", ["-c", "command -v sudo"], { encoding: "utf8" }).stdout.trim();
    if (options.noSudo && sudo) {
      const standIn = join(this.scratch, "no-sudo");
      writeFileSync(standIn, "#!/bin/sh\necho 'sudo: command not found' >&2\nexit 127\n", { mode: 0o755 });
      mounts.push(`mount --bind ${standIn} ${sudo}`);
    }
    this.holder = spawn(
      "unshare",
      ["--mount", "--propagation", "private", "sh", "-c", `set -e; ${mounts.join("; ")}; echo ready; exec sleep infinity`],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    await new Promise<void>((resolve, reject) => {
      this.holder!.stdout!.on("data", (chunk) => {
        output += chunk;
        if (output.includes("ready")) resolve();
      });
      this.holder!.stderr!.on("data", (chunk) => (output += chunk));
      this.holder!.on("exit", (code) => reject(new Error(`the private view of this host did not start (exit ${code}): ${output}`)));
    });
  }

  private get pid(): number {
    if (!this.holder?.pid) throw new Error("HostRoot.start() first");
    return this.holder.pid;
  }

  /**
   * Runs `command` unedited in `shell` -c (root's login shell by default) inside the view, as root
   * or as `user`, with what it prints and its exit code. `stdin` is what the shell reads.
   */
  run(command: string, options: { user?: string; shell?: string; env?: Record<string, string> } = {}): ShellRun {
    const shell = options.shell ?? this.loginShell(options.user ?? "root");
    const asUser = options.user ? ["runuser", "-u", options.user, "--"] : [];
    const env = {
      PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      HOME: options.user ? "/" : "/root",
      LANG: "C.UTF-8",
      ...options.env,
    };
    const result = spawnSync(
      "nsenter",
      [
        "-t",
        String(this.pid),
        "-m",
        "--",
        "env",
        "-i",
        ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
        ...asUser,
        shell,
        "-c",
        command,
      ],
      { encoding: "utf8", cwd: "/" },
    );
    return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
  }

  /** The login shell /etc/passwd gives `user` in the view (bash for root on Debian). */
  loginShell(user: string): string {
    const passwd = this.readFile("/etc/passwd") ?? "";
    const line = passwd.split("\n").find((l) => l.startsWith(`${user}:`));
    const shell = line?.split(":")[6];
    return shell && existsSync(shell) && !/nologin|false/.test(shell) ? shell : "/bin/sh";
  }

  /** A file as the view sees it, or null when it is not there. */
  readFile(path: string): string | null {
    const inView = `/proc/${this.pid}/root${path}`;
    return existsSync(inView) ? readFileSync(inView, "utf8") : null;
  }

  exists(path: string): boolean {
    return existsSync(`/proc/${this.pid}/root${path}`);
  }

  /** Adds a user who may run anything through sudo without a password, in the view only. */
  addSudoUser(name: string): void {
    const run = this.run(
      `useradd --no-create-home --shell /bin/sh ${name} && ` +
        `printf '%s ALL=(ALL) NOPASSWD: ALL\\n' ${name} > /etc/sudoers.d/${name} && chmod 0440 /etc/sudoers.d/${name}`,
    );
    if (run.code !== 0) throw new Error(`could not add the sudo user ${name}: ${run.output}`);
  }

  /** Stops whatever still runs in the view (the agent the installer started) and removes it. */
  async destroy(): Promise<void> {
    if (this.holder?.pid) {
      // Every process whose mount namespace is the view's, the holder last.
      const ns = safeReadlink(`/proc/${this.holder.pid}/ns/mnt`);
      for (const entry of safeReaddir("/proc")) {
        const pid = Number(entry);
        if (!Number.isInteger(pid) || pid === this.holder.pid) continue;
        if (ns && safeReadlink(`/proc/${pid}/ns/mnt`) === ns) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
      }
      const exited = new Promise((r) => this.holder!.on("exit", r));
      this.holder.kill("SIGKILL");
      await exited;
    }
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

function safeReadlink(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
