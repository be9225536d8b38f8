// What the fault tests share: a long outage written into a stopped agent's spool in seconds (the
// agent's own pipeline under a fake clock, agent/cmd/spoolfill), the per-server
// ledger that says whether every batch reached the database exactly once, and a small
// size-limited filesystem for the spool.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { repoRoot } from "./gateway";

export interface SpoolFill {
  batches: number;
  firstSeq: number;
  lastSeq: number;
  from: string;
  to: string;
  spoolBytes: number;
  spoolMaxBytes: number;
  droppedByBound: number;
}

let spoolfillBinary: string | undefined;

/** Removes the spoolfill binary fillSpool built, if any. */
export function removeSpoolfill(): void {
  if (spoolfillBinary) rmSync(dirname(spoolfillBinary), { recursive: true, force: true });
  spoolfillBinary = undefined;
}

/** Spools `batches` intervals of `stepSeconds` ending now into the stopped agent's spool. */
export function fillSpool(config: string, batches: number, stepSeconds = 10): SpoolFill {
  if (!spoolfillBinary) {
    // Not in agent/bin: the gateway serves that directory as its agent downloads.
    spoolfillBinary = join(mkdtempSync(join(tmpdir(), "spindle-spoolfill-")), "spoolfill");
    execFileSync("go", ["build", "-o", spoolfillBinary, "./cmd/spoolfill"], { cwd: join(repoRoot, "agent"), stdio: "pipe" });
  }
  const out = execFileSync(spoolfillBinary, ["--config", config, "--batches", String(batches), "--step", `${stepSeconds}s`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(out);
}

/** What the database holds for one server: enough to tell lost from duplicated batches. */
export interface Ledger {
  hwm: number;
  memoryRows: number;
  memoryTimes: number; // distinct timestamps: one per batch
  diskDuplicates: number; // (device, time) written more than once
  diskWithoutMemory: number; // disk rows of a batch whose memory row is missing: a half-written batch
}

export async function ledger(databaseUrl: string, serverId: string): Promise<Ledger> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const {
      rows: [row],
    } = await client.query(
      `SELECT (SELECT batch_hwm FROM agents WHERE server_id = $1) AS hwm,
              (SELECT count(*) FROM memory WHERE server_id = $1) AS memory_rows,
              (SELECT count(DISTINCT time) FROM memory WHERE server_id = $1) AS memory_times,
              (SELECT count(*) FROM (SELECT 1 FROM disk_io WHERE server_id = $1
                 GROUP BY device, time HAVING count(*) > 1) d) AS disk_duplicates,
              (SELECT count(*) FROM disk_io d WHERE d.server_id = $1 AND NOT EXISTS
                 (SELECT 1 FROM memory m WHERE m.server_id = d.server_id AND m.time = d.time)) AS disk_without_memory`,
      [serverId],
    );
    return {
      hwm: Number(row.hwm),
      memoryRows: Number(row.memory_rows),
      memoryTimes: Number(row.memory_times),
      diskDuplicates: Number(row.disk_duplicates),
      diskWithoutMemory: Number(row.disk_without_memory),
    };
  } finally {
    await client.end();
  }
}

/** A tmpfs of `bytes` mounted on `dir` (root only): a spool disk that fills up. */
export class SmallFilesystem {
  constructor(
    readonly dir: string,
    bytes: number,
  ) {
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${bytes},mode=0700`, "spindle-fault-spool", dir]);
  }

  /** Writes a file until the filesystem has no space left, as a runaway log would. */
  fill(): void {
    try {
      execFileSync("dd", ["if=/dev/zero", `of=${join(this.dir, "filler")}`, "bs=4096"], { stdio: "pipe" });
    } catch {
      // dd stops with "No space left on device": that is the point
    }
  }

  free(): void {
    execFileSync("rm", ["-f", join(this.dir, "filler")]);
  }

  unmount(): void {
    try {
      execFileSync("umount", [this.dir]);
    } catch {
      /* not mounted */
    }
  }
}

export const isRoot = process.getuid?.() === 0;
