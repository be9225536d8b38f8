// A memory cgroup of a test's own, limited to a size, under this process's own memory cgroup:
// cgroup v1 (this machine) or v2 (most customers). Processes started with `inside()` run in it,
// so their memory and the page cache they bring in are charged against its limit. Root only.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function ownCgroup(): { version: 1 | 2; dir: string } {
  const lines = readFileSync("/proc/self/cgroup", "utf8").trim().split("\n");
  const v1 = lines.map((line) => line.split(":")).find(([, controllers]) => controllers!.split(",").includes("memory"));
  if (v1 && existsSync("/sys/fs/cgroup/memory")) return { version: 1, dir: join("/sys/fs/cgroup/memory", v1[2]!) };
  const v2 = lines.find((line) => line.startsWith("0::"));
  if (v2 && existsSync("/sys/fs/cgroup/cgroup.controllers")) return { version: 2, dir: join("/sys/fs/cgroup", v2.slice(3)) };
  throw new Error("no memory cgroup hierarchy for this process: run as root with the cgroup v1 memory controller or cgroup v2");
}

export class MemoryCgroup {
  readonly dir: string;
  private readonly parent: string;

  constructor(name: string, limitBytes: number) {
    const own = ownCgroup();
    this.parent = own.dir;
    this.dir = join(own.dir, name);
    if (own.version === 2) writeFileSync(join(own.dir, "cgroup.subtree_control"), "+memory");
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(join(this.dir, own.version === 1 ? "memory.limit_in_bytes" : "memory.max"), String(limitBytes));
  }

  /** The shell line that runs `command` in this cgroup. */
  inside(command: string): string[] {
    return ["/bin/sh", "-c", `echo $$ > '${this.dir}/cgroup.procs' && exec /bin/sh -c '${command.replaceAll("'", "'\\''")}'`];
  }

  /** Runs `command` in the cgroup to completion (files written there are charged to it). */
  run(command: string): void {
    const [file, ...args] = this.inside(command);
    execFileSync(file!, args, { stdio: "ignore" });
  }

  /** Moves what is left to the parent and removes the cgroup. */
  remove(): void {
    for (let i = 0; i < 50 && existsSync(this.dir); i++) {
      for (const pid of readFileSync(join(this.dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean)) {
        try {
          writeFileSync(join(this.parent, "cgroup.procs"), pid);
        } catch {
          /* gone meanwhile */
        }
      }
      try {
        rmdirSync(this.dir);
      } catch {
        execFileSync("sleep", ["0.1"]);
      }
    }
  }
}
