// The plain-mode rollup of the deep-telemetry families against real PostgreSQL: minute and hour
// rollups equal the raw sums (latency buckets included, so merged percentiles are exact), a
// column never measured stays NULL, and deep rows age out like disk_io's.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { deleteExpiredTelemetry } from "./retention.js";
import { rollupPending } from "@spindle/timeseries";

const server = "00000000-0000-4000-8000-0000000000e1";
const buckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);

/** Latency rows of sda reads: sample n has n I/Os in bucket 7 and 2n in bucket 12. */
async function insertLatency(pool: PlainDatabase["pool"], times: string[]) {
  const values: unknown[] = [];
  const tuples = times.map((time, i) => {
    const n = i + 1;
    const counts = buckets.map((_, b) => (b === 7 ? n : b === 12 ? 2 * n : 0));
    values.push(time, "org-a", server, "sda", "read", 10, 3 * n, 0.001 * n, ...counts);
    const width = 8 + buckets.length;
    return `(${Array.from({ length: width }, (_, c) => `$${i * width + c + 1}`).join(", ")})`;
  });
  await pool.query(
    `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${buckets.join(", ")})
     VALUES ${tuples.join(", ")}`,
    values,
  );
}

const latencyFromRaw = (width: string) => `
  SELECT date_bin(INTERVAL '${width}', time, TIMESTAMPTZ '2000-01-03') AS bucket, device, operation, sum(interval_seconds) AS interval_seconds,
         sum(operations)::bigint AS operations, ${buckets.map((b) => `sum(${b})::bigint AS ${b}`).join(", ")}, count(*) AS samples
  FROM disk_latency GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
const latencyFromRollup = (table: string) =>
  `SELECT bucket, device, operation, interval_seconds, operations, ${buckets.join(", ")}, samples FROM ${table} ORDER BY 1, 2, 3`;

describe("rollupPending for deep telemetry", { skip: skipReason }, () => {
  let plain: PlainDatabase;

  before(async () => {
    plain = await openPlainDatabase("worker_rollup_deep");
  });
  after(async () => {
    await plain?.close();
  });

  it("sums latency buckets into minutes and hours that equal the raw sums", async () => {
    const { pool } = plain;
    await insertLatency(pool, ["2026-11-20T10:59:40Z", "2026-11-20T10:59:50Z", "2026-11-20T11:00:00Z", "2026-11-20T11:00:10Z"]);
    const result = await rollupPending(pool);
    assert.deepEqual(result, { rangesProcessed: 1, serversRolledUp: 1 });
    assert.deepEqual((await pool.query(latencyFromRollup("disk_latency_1m"))).rows, (await pool.query(latencyFromRaw("1 minute"))).rows);
    assert.deepEqual((await pool.query(latencyFromRollup("disk_latency_1h"))).rows, (await pool.query(latencyFromRaw("1 hour"))).rows);
    const hour = await pool.query("SELECT bucket_07, bucket_12, sum_seconds FROM disk_latency_1h WHERE bucket = '2026-11-20T11:00:00Z'");
    assert.deepEqual(hour.rows, [{ bucket_07: "7", bucket_12: "14", sum_seconds: 0.007 }]);
  });

  it("rolls up database statistics per database and keeps unreported pressure NULL", async () => {
    const { pool } = plain;
    await pool.query(
      `INSERT INTO pg_database_stats VALUES
         ('2026-11-20T10:59:40Z', 'org-a', $1, 'shop', 10, 500, 2, 9000, 1000, 4000),
         ('2026-11-20T10:59:50Z', 'org-a', $1, 'shop', 10, 700, 0, 9900, 100, 150),
         ('2026-11-20T10:59:50Z', 'org-a', $1, 'postgres', 10, 1, 0, 10, 0, 0)`,
      [server],
    );
    await pool.query(
      `INSERT INTO pressure VALUES ('2026-11-20T10:59:40Z', 'org-a', $1, 10, 1000, NULL, 20, 10),
                                   ('2026-11-20T10:59:50Z', 'org-a', $1, 10, 3000, NULL, 0, 0)`,
      [server],
    );
    await pool.query(`INSERT INTO page_cache VALUES ('2026-11-20T10:59:40Z', 'org-a', $1, 10, 1000, 10)`, [server]);
    await rollupPending(pool);
    const stats = await pool.query(
      "SELECT database, interval_seconds, commits, blocks_hit, blocks_read, block_read_time_us, samples FROM pg_database_stats_1h ORDER BY database",
    );
    assert.deepEqual(stats.rows, [
      {
        database: "postgres",
        interval_seconds: 10,
        commits: "1",
        blocks_hit: "10",
        blocks_read: "0",
        block_read_time_us: "0",
        samples: "1",
      },
      {
        database: "shop",
        interval_seconds: 20,
        commits: "1200",
        blocks_hit: "18900",
        blocks_read: "1100",
        block_read_time_us: "4150",
        samples: "2",
      },
    ]);
    const pressure = await pool.query("SELECT memory_some_us, memory_full_us, io_some_us, samples FROM pressure_1m");
    assert.deepEqual(pressure.rows, [{ memory_some_us: "4000", memory_full_us: null, io_some_us: "20", samples: "2" }]);
    const cache = await pool.query("SELECT accesses, misses FROM page_cache_1h");
    assert.deepEqual(cache.rows, [{ accesses: "1000", misses: "10" }]);
  });

  it("rolls up SQL Server statistics per instance without counting unmeasured intervals as 0", async () => {
    const { pool } = plain;
    // The first sample after the agent started has no batch count and no hit ratio yet.
    await pool.query(
      `INSERT INTO sqlserver_stats (time, org_id, server_id, instance, interval_seconds, batch_requests, buffer_cache_hit_ratio, page_life_expectancy_s)
       VALUES ('2026-11-20T10:59:30Z', 'org-a', $1, 'MSSQLSERVER', 10, NULL, NULL, 300),
              ('2026-11-20T10:59:40Z', 'org-a', $1, 'MSSQLSERVER', 10, 400, 0.9, 310),
              ('2026-11-20T10:59:50Z', 'org-a', $1, 'MSSQLSERVER', 10, 600, 0.8, 320)`,
      [server],
    );
    await rollupPending(pool);
    for (const table of ["sqlserver_stats_1m", "sqlserver_stats_1h"]) {
      const { rows } = await pool.query(
        `SELECT instance, interval_seconds, batch_requests, batch_seconds, round(hit_ratio_sum::numeric, 6)::float8 AS hit_ratio_sum,
                hit_ratio_samples, page_life_expectancy_s, samples FROM ${table}`,
      );
      assert.deepEqual(
        rows,
        [
          {
            instance: "MSSQLSERVER",
            interval_seconds: 30,
            batch_requests: "1000",
            batch_seconds: 20,
            hit_ratio_sum: 1.7,
            hit_ratio_samples: "2",
            page_life_expectancy_s: "930",
            samples: "3",
          },
        ],
        table,
      );
    }
  });

  it("rolls up untimed I/Os per device and operation, next to the latency they qualify", async () => {
    const { pool } = plain;
    // sdb's reads: 9 untimed, then none (a measured 0), then 3, across an hour boundary; one
    // discard interval with untimed I/Os and no histogram at all.
    await pool.query(
      `INSERT INTO disk_io_untimed (time, org_id, server_id, device, operation, interval_seconds, untimed_ops)
       VALUES ('2026-11-20T10:59:40Z', 'org-a', $1, 'sdb', 'read', 10, 9),
              ('2026-11-20T10:59:50Z', 'org-a', $1, 'sdb', 'read', 10, 0),
              ('2026-11-20T11:00:00Z', 'org-a', $1, 'sdb', 'read', 10, 3),
              ('2026-11-20T11:00:00Z', 'org-a', $1, 'sdb', 'discard', 10, 2)`,
      [server],
    );
    await rollupPending(pool);
    const rows = async (table: string) =>
      (
        await pool.query(
          `SELECT bucket::text, operation, interval_seconds, untimed_ops, samples FROM ${table} WHERE device = 'sdb' ORDER BY 1, 2`,
        )
      ).rows.map((r) => Object.values(r));
    assert.deepEqual(await rows("disk_io_untimed_1m"), [
      ["2026-11-20 10:59:00+00", "read", 20, "9", "2"],
      ["2026-11-20 11:00:00+00", "discard", 10, "2", "1"],
      ["2026-11-20 11:00:00+00", "read", 10, "3", "1"],
    ]);
    assert.deepEqual(await rows("disk_io_untimed_1h"), [
      ["2026-11-20 10:00:00+00", "read", 20, "9", "2"],
      ["2026-11-20 11:00:00+00", "discard", 10, "2", "1"],
      ["2026-11-20 11:00:00+00", "read", 10, "3", "1"],
    ]);
  });

  it("ages deep rows out on the same schedule as disk_io", async () => {
    const { pool } = plain;
    const now = new Date("2026-12-25T12:00:00Z"); // 35 days after the rows above
    const deleted = await deleteExpiredTelemetry(pool, { now });
    assert.equal(deleted.disk_latency, 4);
    assert.equal(deleted.pg_database_stats, 3);
    assert.equal(deleted.sqlserver_stats, 3);
    assert.equal(deleted.disk_io_untimed, 4);
    assert.equal(deleted.disk_latency_1m, 0, "minutes are kept 90 days");
    assert.equal(deleted.fragmentation_scans, 0);
  });
});
