// Hours that take what their touched minutes changed by (rollup-sql.ts, minutesAndHourChange)
// must stay equal to a from-scratch recomputation: every minute from all its raw rows, every
// hour from all its minutes. Rows arrive in rounds with a rollup after each, including late rows
// into minutes and hours already rolled up, a column measured late in a minute that had it NULL,
// larger and smaller maxima, and two workers at once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { diskSeries, insertDiskSamples, openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { rollupPending } from "@spindle/timeseries";
import { hourFromMinutesSql, mergeableFamilies, minutesFromRawSql } from "@spindle/timeseries";

const serverA = "00000000-0000-4000-8000-0000000000c1";
const serverB = "00000000-0000-4000-8000-0000000000c2";
const latencyBuckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);
const checked = ["disk_io", "disk_latency", "pressure", "sqlserver_stats"];

type Pool = PlainDatabase["pool"];

async function insertLatency(pool: Pool, server: string, times: string[], n0: number) {
  for (const [i, time] of times.entries()) {
    const n = n0 + i;
    await pool.query(
      `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${latencyBuckets.join(", ")})
       VALUES ($1, 'org-a', $2, 'sda', 'read', 10, $6, $4, ${latencyBuckets.map((_, b) => (b === 7 ? "$3" : b === 12 ? "$5" : "0")).join(", ")})`,
      [time, server, n, 0.001 * n + 1e-7 / 3, 2 * n, 3 * n],
    );
  }
}

/** Pressure with memory_full_us as given (NULL = the kernel did not report it). */
async function insertPressure(pool: Pool, server: string, rows: [time: string, some: number, full: number | null][]) {
  for (const [time, some, full] of rows) {
    await pool.query("INSERT INTO pressure VALUES ($1, 'org-a', $2, 10, $3, $4, $3, NULL)", [time, server, some, full]);
  }
}

/** SQL Server rows: batch_requests NULL on an instance's first interval, hit ratio NULL before any read. */
async function insertSqlServer(
  pool: Pool,
  server: string,
  rows: [time: string, batches: number | null, hit: number | null, ple: number][],
) {
  for (const [time, batches, hit, ple] of rows) {
    await pool.query("INSERT INTO sqlserver_stats VALUES ($1, 'org-a', $2, 'MSSQLSERVER', 10, $3, $4, $5)", [
      time,
      server,
      batches,
      hit,
      ple,
    ]);
  }
}

/** Integers (bigint and numeric arrive as strings) must match exactly; doubles to rounding. */
function assertSameRows(actual: Record<string, unknown>[], expected: Record<string, unknown>[], what: string) {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} rows, from scratch ${expected.length}`);
  for (const [i, row] of expected.entries()) {
    for (const [column, want] of Object.entries(row)) {
      const got = actual[i]![column];
      if (typeof want === "number" && typeof got === "number") {
        assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${what} row ${i} ${column}: ${got}, from scratch ${want}`);
      } else {
        assert.deepEqual(got, want, `${what} row ${i} ${column}`);
      }
    }
  }
}

async function assertEqualsFromScratch(pool: Pool) {
  for (const family of mergeableFamilies.filter((f) => checked.includes(f.source))) {
    const order = `ORDER BY bucket, org_id, server_id${family.keys.map((k) => `, ${k}`).join("")}`;
    const columns = ["bucket", "org_id", "server_id", ...family.keys, ...family.columns.map((c) => c.column)].join(", ");
    for (const [table, fromScratch] of [
      [`${family.source}_1m`, minutesFromRawSql(family)],
      [`${family.source}_1h`, hourFromMinutesSql(family)],
    ] as const) {
      const stored = await pool.query(`SELECT ${columns} FROM ${table} ${order}`);
      const recomputed = await pool.query(`SELECT ${columns} FROM (${fromScratch}) r ${order}`);
      assert.ok(recomputed.rows.length > 0, `${table}: the test wrote rows for it`);
      assertSameRows(stored.rows, recomputed.rows, table);
    }
  }
  const pending = await pool.query("SELECT count(*)::int AS n FROM rollup_pending");
  assert.equal(pending.rows[0].n, 0);
}

describe("rollupPending keeps hours equal to a from-scratch recomputation", { skip: skipReason }, () => {
  let plain: PlainDatabase;

  before(async () => {
    plain = await openPlainDatabase("worker_rollup_incremental");
  });
  after(async () => {
    await plain?.close();
  });

  it("after new minutes, late rows into rolled-up minutes and hours, and late measurements of NULL columns", async () => {
    const { pool } = plain;
    // Round 1: 10:58:05 .. 11:00:55, two servers; memory_full_us and the SQL Server values unmeasured at first.
    await insertDiskSamples(pool, [
      ...diskSeries({ org: "org-a", server: serverA, device: "sda" }, "2026-11-20T10:58:05Z", 18),
      ...diskSeries({ org: "org-a", server: serverB, device: "sda" }, "2026-11-20T10:58:05Z", 18, 300),
    ]);
    await insertLatency(pool, serverA, ["2026-11-20T10:59:40Z", "2026-11-20T10:59:50Z", "2026-11-20T11:00:00Z"], 1);
    await insertPressure(pool, serverA, [
      ["2026-11-20T10:59:40Z", 1000, null],
      ["2026-11-20T11:00:10Z", 500, null],
    ]);
    await insertSqlServer(pool, serverA, [
      ["2026-11-20T10:59:40Z", null, null, 300],
      ["2026-11-20T10:59:50Z", 40, null, 310],
    ]);
    await rollupPending(pool);
    await assertEqualsFromScratch(pool);

    // Round 2: the next minutes of hour 11, and late rows into minutes 10:59 and 11:00 already
    // rolled up: a measured memory_full_us and hit ratio where the minute had none, and a disk
    // row whose in_progress (n % 5 = 4) raises its minute's and hour's maximum.
    await insertDiskSamples(pool, diskSeries({ org: "org-a", server: serverA, device: "sda" }, "2026-11-20T11:01:05Z", 12, 19));
    await insertDiskSamples(pool, diskSeries({ org: "org-a", server: serverA, device: "sda" }, "2026-11-20T10:59:07Z", 1, 4));
    await insertLatency(pool, serverA, ["2026-11-20T11:00:05Z", "2026-11-20T11:02:00Z"], 7);
    await insertPressure(pool, serverA, [
      ["2026-11-20T10:59:45Z", 250, 80],
      ["2026-11-20T11:01:00Z", 20, null],
    ]);
    await insertSqlServer(pool, serverA, [
      ["2026-11-20T10:59:55Z", 60, 0.93, 320],
      ["2026-11-20T11:00:00Z", 10, 0.97, 330],
    ]);
    await rollupPending(pool);
    await assertEqualsFromScratch(pool);

    // Round 3: late rows into the earliest minute of each hour (in_progress 0 and 1: maxima must
    // not fall), rolled up by two workers at once while a third statement adds rows.
    await insertDiskSamples(pool, [
      ...diskSeries({ org: "org-a", server: serverA, device: "sda" }, "2026-11-20T10:58:06Z", 1, 5),
      ...diskSeries({ org: "org-a", server: serverB, device: "sda" }, "2026-11-20T11:00:01Z", 1, 301),
      ...diskSeries({ org: "org-a", server: serverA, device: "sdb" }, "2026-11-20T11:00:02Z", 3, 1),
    ]);
    await insertLatency(pool, serverA, ["2026-11-20T10:59:41Z"], 20);
    await Promise.all([
      rollupPending(pool, { batchSize: 1 }),
      rollupPending(pool, { batchSize: 1 }),
      insertPressure(pool, serverA, [["2026-11-20T11:00:11Z", 7, 9]]),
    ]);
    await rollupPending(pool);
    await assertEqualsFromScratch(pool);

    // Round 4: sdb's minute 11:00 had in_progress at most 3; a late 4 raises minute and hour,
    // a late 0 lowers neither.
    await insertDiskSamples(pool, diskSeries({ org: "org-a", server: serverA, device: "sdb" }, "2026-11-20T11:00:32Z", 2, 4));
    await rollupPending(pool);
    await assertEqualsFromScratch(pool);

    const hours = await pool.query(
      "SELECT device, bucket, in_progress_max, samples FROM disk_io_1h WHERE server_id = $1 ORDER BY device, bucket",
      [serverA],
    );
    assert.deepEqual(
      hours.rows.map((r) => [r.device, r.bucket.toISOString(), r.in_progress_max, r.samples]),
      [
        ["sda", "2026-11-20T10:00:00.000Z", 4, "14"],
        ["sda", "2026-11-20T11:00:00.000Z", 4, "18"],
        ["sdb", "2026-11-20T11:00:00.000Z", 4, "5"],
      ],
    );
    const pressure = await pool.query("SELECT bucket, memory_full_us FROM pressure_1h WHERE server_id = $1 ORDER BY bucket", [serverA]);
    assert.deepEqual(
      pressure.rows.map((r) => r.memory_full_us),
      ["80", "9"],
    );
  });
});
