// Shared by the worker's database tests: a private copy of the migrated template database,
// and compact writers for raw telemetry rows.
import { createPool, readTimeseriesMode } from "@spindle/db";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "@spindle/db/testing";
import type pg from "pg";

export const skipReason = testDatabaseSkipReason();

export interface PlainDatabase {
  db: TestDatabase;
  /** The superuser, which row-level security does not apply to: for fixtures and checks. */
  pool: pg.Pool;
  /** Connected as production connects the worker: a login holding only spindle_worker. */
  workerPool: pg.Pool;
  close(): Promise<void>;
}

/** The login the migrations create for the worker and the deployments use: it holds only spindle_worker. */
const workerTestLogin = "spindle_worker_login";

export async function openPlainDatabase(label: string): Promise<PlainDatabase> {
  const db = await createTestDatabase({ label });
  const pool = createPool(db.url, { max: 6 });
  // Roles are cluster-wide; the test cluster trusts local logins, as a password would elsewhere.
  const { rowCount } = await pool.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [workerTestLogin]);
  if (!rowCount)
    throw new Error(`there is no ${workerTestLogin}: migration 20261128150100_service_logins creates it; restart scripts/test-db.sh`);
  const login = new URL(db.url);
  login.username = workerTestLogin;
  login.password = "";
  const workerPool = createPool(login.toString(), { max: 2 });
  const mode = await readTimeseriesMode(pool);
  if (mode !== "plain") {
    throw new Error(`the test template is in ${mode} mode; the worker's rollup tests need a plain PostgreSQL template`);
  }
  return {
    db,
    pool,
    workerPool,
    close: async () => {
      await Promise.all([pool.end(), workerPool.end()]);
      await db.drop();
    },
  };
}

export interface DiskSample {
  time: string;
  org: string;
  server: string;
  device: string;
  /** Scales every counter, so each sample is distinguishable in sums. */
  n: number;
  intervalSeconds?: number;
}

/** One INSERT statement, as the gateway writes one batch (so the rollup trigger fires once). */
export async function insertDiskSamples(pool: pg.Pool, samples: DiskSample[]): Promise<void> {
  const values: unknown[] = [];
  const tuples = samples.map((s, i) => {
    values.push(
      s.time,
      s.org,
      s.server,
      s.device,
      s.intervalSeconds ?? 10,
      100 * s.n,
      50 * s.n,
      4096 * s.n,
      8192 * s.n,
      s.n,
      2 * s.n,
      3 * s.n,
      5 * s.n,
      7 * s.n,
      11 * s.n,
      s.n % 5,
    );
    return `(${Array.from({ length: 16 }, (_, c) => `$${i * 16 + c + 1}`).join(", ")})`;
  });
  await pool.query(
    `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
       read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
     VALUES ${tuples.join(", ")}`,
    values,
  );
}

export interface MemorySample {
  time: string;
  org: string;
  server: string;
  availableBytes: number;
}

export async function insertMemorySamples(pool: pg.Pool, samples: MemorySample[]): Promise<void> {
  const values: unknown[] = [];
  const tuples = samples.map((s, i) => {
    values.push(
      s.time,
      s.org,
      s.server,
      16e9,
      s.availableBytes,
      Math.round(s.availableBytes / 2),
      4e9 + Math.round(s.availableBytes / 3),
      1e8,
      1e6,
      2e9,
      2e9,
    );
    return `(${Array.from({ length: 11 }, (_, c) => `$${i * 11 + c + 1}`).join(", ")})`;
  });
  await pool.query(
    `INSERT INTO memory (time, org_id, server_id, total_bytes, available_bytes, free_bytes, cached_bytes, buffers_bytes,
       dirty_bytes, swap_total_bytes, swap_free_bytes) VALUES ${tuples.join(", ")}`,
    values,
  );
}

/** `count` samples 10 s apart from `from` (an ISO time), numbered from `firstN`. */
export function diskSeries(base: Omit<DiskSample, "time" | "n">, from: string, count: number, firstN = 1): DiskSample[] {
  const start = Date.parse(from);
  return Array.from({ length: count }, (_, i) => ({ ...base, time: new Date(start + i * 10_000).toISOString(), n: firstN + i }));
}
