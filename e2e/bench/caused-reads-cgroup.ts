// Issue 21's second "done when": in a memory cgroup, the storage reads the read cache caused to
// be saved (the console's estimate against its control group) agree with what an off/on run of
// the same workload in the same cgroup measures (the difference in the reads its device served).
//
// Every part real, as root: PostgreSQL, the gateway, the worker, the console (its API, as a
// signed-in owner) and the agent with eBPF, outside the cgroup as a service would be. The
// workload runs inside a memory cgroup (v2 memory.max, or v1 memory.limit_in_bytes): each round
// it reads a hot set of files twice, then reads twice the limit of a sparse file, each chunk
// twice (a report re-reading what it just read), which pushes the hot set out of the cgroup's
// memory. The hot set lives on a loop device of its own (ext4, direct I/O to its backing file),
// so the device's read counter holds this workload's storage reads and nobody else's; the sparse
// file's holes cost page-cache work and no device reads. The policy includes the hot set only
// (prefetch on, holdout 20 %); the scan is not managed.
//
// Passes of the same number of rounds, one after the other: off (read cache off), on (read cache
// on with its control group). The estimate comes from the on pass alone, over its rounds after
// the first (the cache brings the managed hot set in during the first, a cost the ledger shows
// apart; the off pass is counted over the same rounds). Prints markdown for docs/benchmarks.md.
//
//   npx turbo run build
//   node --import tsx e2e/bench/caused-reads-cgroup.ts [rounds=16]
//   (ports 55620–55622, or SPINDLE_CAUSED_BENCH_PG_PORT / _GATEWAY_PORT / _CONSOLE_PORT;
//    WORK=/var/tmp/spindle-caused-bench; MEM_LIMIT_MIB=256; HOLDOUT_PERCENT=20)
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  rmdirSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { userInfo } from "node:os";
import { basename, join } from "node:path";
import { eventually, InstalledAgent } from "../support/agent";
import { ConsoleProcess, ConsoleSession } from "../support/console";
import { GatewayProcess } from "../support/gateway";
import { PostgresCluster, queryRows } from "../support/postgres";
import { WorkerProcess } from "../support/worker";

const mib = 1024 * 1024;
const limitMib = Number(process.env.MEM_LIMIT_MIB ?? 256);
const hotFiles = 16;
const hotFileBytes = Math.floor((limitMib * mib * 5) / 8 / hotFiles / mib) * mib;
const scanPerRound = 2 * limitMib * mib;
const scanFileBytes = 64 * 1024 * mib;
const chunk = 16 * mib;
/** The control group's share: 20 % of 80 groups keeps its share of the reads near its share by design. */
const holdoutPercent = Number(process.env.HOLDOUT_PERCENT ?? 20);
/** How many times each round reads the hot set before the scan. */
const hotPasses = Number(process.env.HOT_PASSES ?? 1);
/** The scan pauses this long after each chunk, as a backup paced not to hog the disk does. */
const scanPauseMs = Number(process.env.SCAN_PAUSE_MS ?? 50);

interface Round {
  round: number;
  at: number;
  deviceReads: number;
  deviceSectors: number;
}

/** The workload, inside the cgroup (this file run again with --workload). Prints one JSON line per round start and one at the end. */
function workload(hotDir: string, scanPath: string, device: string, rounds: number): void {
  const buffer = Buffer.alloc(chunk);
  const stat = () => {
    const fields = readFileSync(`/sys/block/${device}/stat`, "utf8").trim().split(/\s+/).map(Number);
    return { deviceReads: fields[0]!, deviceSectors: fields[2]! };
  };
  const readRange = (path: string, offset: number, length: number) => {
    const fd = openSync(path, "r");
    try {
      for (let done = 0; done < length; ) {
        const n = readSync(fd, buffer, 0, Math.min(buffer.length, length - done), offset + done);
        if (n <= 0) break;
        done += n;
      }
    } finally {
      closeSync(fd);
    }
  };
  let scanOffset = 0;
  for (let round = 0; round <= rounds; round++) {
    console.log(JSON.stringify({ round, at: Date.now(), ...stat() }));
    if (round === rounds) break;
    for (let pass = 0; pass < hotPasses; pass++) {
      for (let i = 0; i < hotFiles; i++) readRange(join(hotDir, `hot${String(i).padStart(2, "0")}`), 0, hotFileBytes);
    }
    for (let done = 0; done < scanPerRound; done += chunk) {
      readRange(scanPath, scanOffset % scanFileBytes, chunk);
      readRange(scanPath, scanOffset % scanFileBytes, chunk);
      scanOffset += chunk;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, scanPauseMs);
    }
  }
}

if (process.argv[2] === "--workload") {
  workload(process.argv[3]!, process.argv[4]!, process.argv[5]!, Number(process.argv[6]));
  process.exit(0);
}

const rounds = Number(process.argv[2] ?? 16);
const work = process.env.WORK ?? "/var/tmp/spindle-caused-bench";
const mount = join(work, "mnt");
const hotDir = join(mount, "hot");
const scanPath = join(mount, "scan.dat");
const cluster = new PostgresCluster(Number(process.env.SPINDLE_CAUSED_BENCH_PG_PORT ?? 55620));
const databaseUrl = cluster.url("spindle");
const gateway = new GatewayProcess(Number(process.env.SPINDLE_CAUSED_BENCH_GATEWAY_PORT ?? 55621), databaseUrl);
const consoleApp = new ConsoleProcess(Number(process.env.SPINDLE_CAUSED_BENCH_CONSOLE_PORT ?? 55622), databaseUrl, gateway.url);
const worker = new WorkerProcess(databaseUrl, {});
const agent = new InstalledAgent();
const session = new ConsoleSession(consoleApp.url);
const cgroupName = `spindle-caused-bench-${process.pid}`;
const cgroupV2 = existsSync("/sys/fs/cgroup/cgroup.controllers");
const cgroupDir = cgroupV2 ? `/sys/fs/cgroup/${cgroupName}` : `/sys/fs/cgroup/memory/${cgroupName}`;
let loopDevice = "";

function sh(file: string, args: string[]): string {
  return execFileSync(file, args, { encoding: "utf8" }).trim();
}

function setUpDevice(): void {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(mount, { recursive: true });
  const image = join(work, "device.img");
  writeFileSync(image, "");
  truncateSync(image, 2048 * mib);
  loopDevice = sh("losetup", ["--find", "--show", "--direct-io=on", image]);
  sh("mkfs.ext4", ["-q", "-F", loopDevice]);
  sh("mount", [loopDevice, mount]);
  mkdirSync(hotDir);
  for (let i = 0; i < hotFiles; i++) writeFileSync(join(hotDir, `hot${String(i).padStart(2, "0")}`), randomBytes(hotFileBytes));
  writeFileSync(scanPath, "");
  truncateSync(scanPath, scanFileBytes);
  sh("sync", []);
}

function setUpCgroup(): void {
  mkdirSync(cgroupDir, { recursive: true });
  if (cgroupV2) {
    writeFileSync(join(cgroupDir, "memory.max"), `${limitMib * mib}`);
    if (existsSync(join(cgroupDir, "memory.swap.max"))) writeFileSync(join(cgroupDir, "memory.swap.max"), "0");
  } else {
    writeFileSync(join(cgroupDir, "memory.limit_in_bytes"), `${limitMib * mib}`);
  }
}

/**
 * Waits for the host's memory pressure (PSI some avg10) to settle below 5 %: the read cache backs
 * off above 10 %, and the off pass's thrashing must not count against the on pass.
 */
async function settle(): Promise<void> {
  await eventually(
    "memory pressure to settle",
    () => {
      const avg10 = Number(/some avg10=([\d.]+)/.exec(readFileSync("/proc/pressure/memory", "utf8"))?.[1]);
      return avg10 < 5 ? true : undefined;
    },
    120_000,
  );
}

/** Drops every page of the hot set (the pages the agent brought in too): each pass starts cold. */
function evictHotSet(): void {
  for (let i = 0; i < hotFiles; i++) {
    execFileSync("dd", [`if=${join(hotDir, `hot${String(i).padStart(2, "0")}`)}`, "iflag=nocache", "count=0", "status=none"]);
  }
}

async function runPass(): Promise<Round[]> {
  const device = basename(loopDevice);
  const child = spawn(
    "sh",
    [
      "-c",
      `echo $$ > '${cgroupDir}/cgroup.procs' && exec "$0" "$@"`,
      process.execPath,
      ...process.execArgv,
      process.argv[1]!,
      "--workload",
      hotDir,
      scanPath,
      device,
      String(rounds),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (data: Buffer) => (out += data.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`the workload exited with ${code}`);
  return out
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Round);
}

/** Waits until the agent applied the server's effective policy; saves `document` as a new version first when given. */
async function applyPolicy(policyId: string, document: object | null, basedOnVersion: number, serverId: string): Promise<void> {
  if (document) await session.post(`/api/policies/${policyId}/versions`, { document, comment: "caused-reads benchmark", basedOnVersion });
  await eventually(
    "the agent to apply the policy",
    async () => {
      const [row] = await queryRows<{ ok: boolean }>(
        databaseUrl,
        `SELECT s.status = 'applied' AND s.applied_hash = e.hash AS ok FROM server_policy_status s
       JOIN server_effective_policies e USING (org_id, server_id) WHERE s.server_id = $1`,
        [serverId],
      );
      return row?.ok ? true : undefined;
    },
    120_000,
  );
}

interface CausedAnswer {
  status: string;
  reason?: string;
  value: {
    savedIos: number;
    meanReadBytes: number;
    capped: boolean;
    interval: { low: number; high: number };
    estimate: {
      savedPages: number;
      interval: { lowPages: number; highPages: number };
      controlMissRatio: number;
      managedMissRatio: number;
      controlShare: number;
      expectedControlShare: number;
      units: number;
      effectiveUnits: number;
    };
  };
}

async function main(): Promise<void> {
  if (userInfo().uid !== 0) throw new Error("run as root: a loop device, a memory cgroup and the agent's eBPF programs");
  setUpDevice();
  setUpCgroup();
  cluster.start();
  cluster.createMigratedDatabase();
  await gateway.start();
  worker.start();
  await consoleApp.start();
  const id = randomBytes(3).toString("hex");
  await session.signUp(`Bench ${id}`, `bench-${id}@example.test`, `pw-${id}-long-enough`, `Bench Corp ${id}`);
  const { token } = await session.post<{ token: { installCommand: string } }>("/api/enrollment-tokens", {
    label: "bench",
    expiresIn: "1h",
  });
  agent.install(token.installCommand);
  agent.setInterval(2);
  agent.start();
  const serverId = await eventually("the agent's first batch", () => {
    const status = agent.status();
    return status.lastBatchSeq > 0 && status.delivery.lastDeliveredSeq ? status.serverId : undefined;
  });
  const off = { schemaVersion: 1, telemetry: { intervalSeconds: 2 }, readCache: { enabled: false } };
  const on = {
    schemaVersion: 1,
    telemetry: { intervalSeconds: 2 },
    readCache: { enabled: true, include: [`${hotDir}/**`], prefetch: true, holdoutPercent },
  };
  const { policy } = await session.post<{ policy: { id: string } }>("/api/policies", { name: "Bench", document: off, comment: "off" });
  await session.post("/api/policies/assignments", { scope: "organization", policyId: policy.id });

  await applyPolicy(policy.id, null, 1, serverId);
  evictHotSet();
  const offRounds = await runPass();
  await applyPolicy(policy.id, on, 1, serverId);
  evictHotSet();
  await settle();
  const onRounds = await runPass();
  // The agent's last intervals of the pass reach the database.
  const end = new Date(onRounds.at(-1)!.at);
  await eventually(
    "the pass's last interval stored",
    async () => {
      const [row] = await queryRows<{ n: number }>(
        databaseUrl,
        "SELECT count(*)::int AS n FROM read_cache_holdout WHERE server_id = $1 AND time >= $2",
        [serverId, end],
      );
      return row && row.n > 0 ? true : undefined;
    },
    60_000,
  );

  const steady = (passRounds: Round[]) => ({
    reads: passRounds.at(-1)!.deviceReads - passRounds[1]!.deviceReads,
    bytes: (passRounds.at(-1)!.deviceSectors - passRounds[1]!.deviceSectors) * 512,
  });
  const offSteady = steady(offRounds);
  const onSteady = steady(onRounds);
  const proofBytes = offSteady.bytes - onSteady.bytes;
  const proofReads = offSteady.reads - onSteady.reads;
  const from = new Date(onRounds[1]!.at).toISOString();
  const to = end.toISOString();
  const gains = await session.get<{ causedReads: CausedAnswer; ledger: { key: string; effect: { status: string; value?: number } }[] }>(
    `/api/servers/${serverId}/gains?range=custom&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
  );
  const caused = gains.causedReads;
  const [cache] = await queryRows<{ backoffs: number; prefetched: number; dropped: number; pinned: number }>(
    databaseUrl,
    `SELECT sum(backoffs)::float8 AS backoffs, sum(prefetched_bytes)::float8 AS prefetched, sum(dropped_behind_bytes)::float8 AS dropped,
            max(pinned_bytes)::float8 AS pinned FROM read_cache WHERE server_id = $1 AND time > $2`,
    [serverId, new Date(onRounds[0]!.at)],
  );
  const backingOff = agent.output.split("\n").filter((line) => line.includes("read cache backing off"));
  console.log(
    `the read cache in the on pass: ${cache?.backoffs} backoffs, ${((cache?.prefetched ?? 0) / mib).toFixed(1)} MiB prefetched, ` +
      `${((cache?.dropped ?? 0) / mib).toFixed(1)} MiB dropped behind; ${backingOff.length} backoff log lines${backingOff[0] ? `, the first: ${backingOff[0]}` : ""}`,
  );
  if (caused.status !== "measured") throw new Error(`caused reads not measured: ${caused.reason}`);
  const c = caused.value;
  const causedBytes = c.estimate.savedPages * 4096;
  const lowBytes = c.estimate.interval.lowPages * 4096;
  const highBytes = c.estimate.interval.highPages * 4096;
  const own = gains.ledger.find((line) => line.key === "ownStorageReads");
  const ownBytes = own?.effect.status === "measured" ? (own.effect.value ?? 0) * c.meanReadBytes : null;
  const agreement = causedBytes / proofBytes - 1;
  const seconds = (onRounds.at(-1)!.at - onRounds[1]!.at) / 1000;
  console.log(
    `memory cgroup ${limitMib} MiB (${cgroupV2 ? "v2" : "v1"}); hot set ${hotFiles} × ${hotFileBytes / mib} MiB on ${loopDevice}; ` +
      `${rounds} rounds per pass, counted from the second (${seconds.toFixed(0)} s of the on pass)`,
  );
  console.log("");
  console.log("| | value |");
  console.log("|---|---|");
  console.log(`| off pass: device reads (rounds 2–${rounds}) | ${offSteady.reads} reads, ${(offSteady.bytes / mib).toFixed(1)} MiB |`);
  console.log(`| on pass: device reads (rounds 2–${rounds}) | ${onSteady.reads} reads, ${(onSteady.bytes / mib).toFixed(1)} MiB |`);
  console.log(`| proof run: off − on | ${proofReads} reads, ${(proofBytes / mib).toFixed(1)} MiB |`);
  console.log(
    `| caused estimate (on pass alone) | ${(causedBytes / mib).toFixed(1)} MiB, 95 % interval ${(lowBytes / mib).toFixed(1)} – ${(highBytes / mib).toFixed(1)} MiB` +
      ` (${c.savedIos.toFixed(0)} reads at the server's mean ${(c.meanReadBytes / 1024).toFixed(1)} KiB${c.capped ? ", capped" : ""}) |`,
  );
  console.log(
    `| miss ratio: control / managed | ${(c.estimate.controlMissRatio * 100).toFixed(1)} % / ${(c.estimate.managedMissRatio * 100).toFixed(1)} % |`,
  );
  console.log(
    `| control's share of accesses (by design) | ${(c.estimate.controlShare * 100).toFixed(1)} % (${(c.estimate.expectedControlShare * 100).toFixed(1)} %) |`,
  );
  console.log(`| units (effective) | ${c.estimate.units} (${c.estimate.effectiveUnits.toFixed(1)}) |`);
  console.log(`| the cache's own reads in the window | ${ownBytes === null ? "not measured" : `${(ownBytes / mib).toFixed(1)} MiB`} |`);
  console.log(`| estimate vs proof run | ${(agreement * 100).toFixed(1)} % |`);
  if (!(lowBytes > 0)) console.log("\nFAIL: the interval does not exclude 0");
  if (Math.abs(agreement) > 0.15) console.log("\nFAIL: the estimate and the proof run differ by more than 15 %");
}

async function cleanUp(): Promise<void> {
  await agent.destroy().catch(() => undefined);
  await worker.stop().catch(() => undefined);
  await consoleApp.stop().catch(() => undefined);
  await gateway.stop().catch(() => undefined);
  try {
    cluster.destroy();
  } catch {
    /* not started */
  }
  if (loopDevice) {
    try {
      sh("umount", [mount]);
    } catch {
      /* not mounted */
    }
    try {
      sh("losetup", ["-d", loopDevice]);
    } catch {
      /* gone */
    }
  }
  try {
    rmdirSync(cgroupDir);
  } catch {
    /* still busy or gone */
  }
  rmSync(work, { recursive: true, force: true });
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exitCode = 1;
  })
  .finally(cleanUp);
