// The fleet of the rollouts test: five real agents on this machine, each a server of its own
// (its own machine id, state directory and, through a bind mount in its private mount namespace,
// its own files at the one path the policy names), each with a read workload on those files.
// The canary and its workload run inside a memory cgroup, so a policy that pins too much there
// takes memory from that workload alone. Root only.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { InstalledAgent } from "./agent";
import { Child } from "./child";
import { MemoryCgroup } from "./memory-cgroup";

const mib = 1024 * 1024;

export interface FleetAgent {
  name: string;
  agent: InstalledAgent;
  /** Where its files really are; the agent sees them at RolloutFleet.managed. */
  dataDir: string;
  workload?: Child;
  serverId: string;
}

export class RolloutFleet {
  readonly root: string;
  /** The path every agent sees its own files at: the one path the policies name. */
  readonly managed: string;
  readonly cgroup: MemoryCgroup;
  readonly agents: FleetAgent[] = [];
  static readonly canaryHotFiles = 7;
  static readonly coldFiles = 14;
  static readonly fileBytes = 16 * mib;

  constructor(readonly canaryLimitBytes: number) {
    const id = randomBytes(4).toString("hex");
    this.root = `/tmp/spindle-rollouts-${id}`;
    this.managed = join(this.root, "managed");
    mkdirSync(this.managed, { recursive: true });
    this.cgroup = new MemoryCgroup(`spindle-rollouts-${id}`, canaryLimitBytes);
  }

  /** Files of one server: the canary's hot set and cold files written inside its cgroup (their pages are charged there). */
  private writeFiles(dir: string, canary: boolean): void {
    mkdirSync(dir, { recursive: true });
    const hot = canary ? RolloutFleet.canaryHotFiles : 1;
    const cold = canary ? RolloutFleet.coldFiles : 0;
    const writes = [
      ...Array.from({ length: hot }, (_, i) => `head -c ${RolloutFleet.fileBytes} /dev/urandom > '${dir}/hot-${i}'`),
      ...Array.from(
        { length: cold },
        (_, i) => `head -c ${RolloutFleet.fileBytes} /dev/urandom > '${dir}/cold-${String(i).padStart(2, "0")}'`,
      ),
    ].join(" && ");
    if (canary) this.cgroup.run(writes);
    else execFileSync("/bin/sh", ["-c", writes], { stdio: "ignore" });
  }

  /**
   * Installs an agent with the console's one-liner; `canary` puts it (and later its workload) in the cgroup.
   * Every agent samples every second; of the eBPF programs only the page-cache one runs (the read
   * cache's hits come from it), and the fragmentation scanner is off.
   */
  install(name: string, oneLiner: string, canary: boolean): FleetAgent {
    const dataDir = join(this.root, name);
    this.writeFiles(dataDir, canary);
    const agent = new InstalledAgent();
    agent.useMachineId(randomBytes(16).toString("hex"));
    agent.bindMount(dataDir, this.managed);
    if (canary) agent.useCgroup(this.cgroup.dir);
    agent.install(oneLiner);
    agent.setInterval(1);
    agent.disableCollectors(["block_latency", "block_split", "mrc", "fragmentation"]);
    const entry: FleetAgent = { name, agent, dataDir, serverId: "" };
    this.agents.push(entry);
    return entry;
  }

  /** Reads the server's hot files once a second, as an application re-reading its working set. */
  startWorkload(entry: FleetAgent, canary: boolean): void {
    const loop = `while :; do cat '${entry.dataDir}'/hot-* > /dev/null; sleep 1; done`;
    const [file, ...args] = canary ? this.cgroup.inside(loop) : ["/bin/sh", "-c", loop];
    entry.workload = new Child(file!, args, {}, () => {});
  }

  coldFile(index: number): string {
    return join(this.managed, `cold-${String(index).padStart(2, "0")}`);
  }

  async destroy(): Promise<void> {
    for (const entry of this.agents) {
      await entry.workload?.kill("SIGKILL");
      await entry.agent.destroy();
    }
    this.cgroup.remove();
    rmSync(this.root, { recursive: true, force: true });
  }
}
