// The plain-mode rollup against real PostgreSQL: rollups equal what the raw rows say, late
// rows re-roll their bucket, organisations never mix, and concurrent workers agree.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  diskSeries,
  insertDiskSamples,
  insertMemorySamples,
  openPlainDatabase,
  skipReason,
  type PlainDatabase,
} from "../test-support/telemetry.js";
import { rollupPending } from "@spindle/timeseries";

const serverA = "00000000-0000-4000-8000-00000000000a";
const serverB = "00000000-0000-4000-8000-00000000000b";

const counters =
  "interval_seconds, read_ops, write_ops, read_bytes, write_bytes, read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms";

/** The rollup as computed straight from raw rows; what every rollup table must equal. */
function diskFromRaw(width: string): string {
  const sums = counters.split(", ").map((c) => (c === "interval_seconds" ? `sum(${c}) AS ${c}` : `sum(${c})::bigint AS ${c}`));
  return `SELECT date_bin(INTERVAL '${width}', time, TIMESTAMPTZ '2000-01-03') AS bucket, org_id, server_id, device,
            ${sums.join(", ")}, max(in_progress) AS in_progress_max, count(*) AS samples
          FROM disk_io GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`;
}
const diskFromRollup = (table: string) =>
  `SELECT bucket, org_id, server_id, device, ${counters}, in_progress_max, samples FROM ${table} ORDER BY 1, 2, 3, 4`;

describe("rollupPending", { skip: skipReason }, () => {
  let plain: PlainDatabase;

  before(async () => {
    plain = await openPlainDatabase("worker_rollup");
  });
  after(async () => {
    await plain?.close();
  });

  it("rolls raw disk rows into 1-minute and 1-hour buckets that equal the raw sums", async () => {
    const { pool } = plain;
    // 10:58:05 .. 11:01:55 for two devices of server A (org-a) and one of server B (org-b), in
    // separate insert statements as separate agents' batches would be.
    await insertDiskSamples(pool, [
      ...diskSeries({ org: "org-a", server: serverA, device: "sda" }, "2026-11-20T10:58:05Z", 24),
      ...diskSeries({ org: "org-a", server: serverA, device: "sdb" }, "2026-11-20T10:58:05Z", 24, 1000),
    ]);
    await insertDiskSamples(pool, diskSeries({ org: "org-b", server: serverB, device: "sda" }, "2026-11-20T10:58:05Z", 24, 5000));

    const result = await rollupPending(pool);
    assert.deepEqual(result, { rangesProcessed: 2, serversRolledUp: 2 });

    assert.deepEqual((await pool.query(diskFromRollup("disk_io_1m"))).rows, (await pool.query(diskFromRaw("1 minute"))).rows);
    assert.deepEqual((await pool.query(diskFromRollup("disk_io_1h"))).rows, (await pool.query(diskFromRaw("1 hour"))).rows);
    const buckets = await pool.query("SELECT count(*)::int AS minutes FROM disk_io_1m WHERE server_id = $1 AND device = 'sda'", [serverA]);
    assert.equal(buckets.rows[0].minutes, 4);
    const pending = await pool.query("SELECT count(*)::int AS n FROM rollup_pending");
    assert.equal(pending.rows[0].n, 0);
  });

  it("keeps organisations apart even when device names and times coincide", async () => {
    const { rows } = await plain.pool.query(
      "SELECT org_id, server_id, sum(read_ops)::bigint AS read_ops, sum(samples)::int AS samples FROM disk_io_1h WHERE device = 'sda' GROUP BY 1, 2 ORDER BY 1",
    );
    // read_ops of sample n is 100 n: org-a's sda has n = 1..24, org-b's n = 5000..5023.
    const sum = (first: number) => Array.from({ length: 24 }, (_, i) => 100 * (first + i)).reduce((a, b) => a + b, 0);
    assert.deepEqual(rows, [
      { org_id: "org-a", server_id: serverA, read_ops: String(sum(1)), samples: 24 },
      { org_id: "org-b", server_id: serverB, read_ops: String(sum(5000)), samples: 24 },
    ]);
  });

  it("re-rolls the buckets a late row lands in, and only those", async () => {
    const { pool } = plain;
    const before = await pool.query(diskFromRollup("disk_io_1m"));
    await insertDiskSamples(pool, [{ time: "2026-11-20T10:59:07Z", org: "org-a", server: serverA, device: "sda", n: 777 }]);
    const result = await rollupPending(pool);
    assert.deepEqual(result, { rangesProcessed: 1, serversRolledUp: 1 });

    const after = await pool.query(diskFromRollup("disk_io_1m"));
    assert.deepEqual(after.rows, (await pool.query(diskFromRaw("1 minute"))).rows);
    assert.deepEqual((await pool.query(diskFromRollup("disk_io_1h"))).rows, (await pool.query(diskFromRaw("1 hour"))).rows);
    const changed = after.rows.filter((row, i) => JSON.stringify(row) !== JSON.stringify(before.rows[i]));
    assert.deepEqual(
      changed.map((row) => [row.bucket.toISOString(), row.device, row.samples]),
      [["2026-11-20T10:59:00.000Z", "sda", "7"]],
    );
  });

  it("averages memory per minute and weights minutes by samples for the hour", async () => {
    const { pool } = plain;
    await insertMemorySamples(pool, [
      { time: "2026-11-20T10:59:10Z", org: "org-a", server: serverA, availableBytes: 6_000 },
      { time: "2026-11-20T10:59:20Z", org: "org-a", server: serverA, availableBytes: 3_000 },
      { time: "2026-11-20T10:59:30Z", org: "org-a", server: serverA, availableBytes: 9_000 },
      { time: "2026-11-20T10:30:00Z", org: "org-a", server: serverA, availableBytes: 12_000 },
    ]);
    await rollupPending(pool);
    const minutes = await pool.query(
      "SELECT bucket, available_bytes, available_min_bytes, samples FROM memory_1m WHERE server_id = $1 ORDER BY bucket",
      [serverA],
    );
    assert.deepEqual(minutes.rows, [
      { bucket: new Date("2026-11-20T10:30:00Z"), available_bytes: "12000", available_min_bytes: "12000", samples: "1" },
      { bucket: new Date("2026-11-20T10:59:00Z"), available_bytes: "6000", available_min_bytes: "3000", samples: "3" },
    ]);
    const hour = await pool.query("SELECT available_bytes, available_min_bytes, samples FROM memory_1h WHERE server_id = $1", [serverA]);
    // (12000 + 6000 + 3000 + 9000) / 4 samples, not the average of the two minute averages (9000).
    assert.deepEqual(hour.rows, [{ available_bytes: "7500", available_min_bytes: "3000", samples: "4" }]);
  });

  it("gives the same result when several workers roll up at once", async () => {
    const { pool } = plain;
    // Twelve batches across the same minutes of server A, then three workers race in small batches.
    for (let batch = 0; batch < 12; batch++) {
      await insertDiskSamples(
        pool,
        diskSeries({ org: "org-a", server: serverA, device: "sdc" }, `2026-11-20T12:0${batch % 3}:0${batch % 10}Z`, 3, batch * 10),
      );
    }
    const results = await Promise.all([1, 2, 3].map(() => rollupPending(pool, { batchSize: 2 })));
    assert.equal(
      results.reduce((total, r) => total + r.rangesProcessed, 0),
      12,
    );
    assert.deepEqual((await pool.query(diskFromRollup("disk_io_1m"))).rows, (await pool.query(diskFromRaw("1 minute"))).rows);
    assert.deepEqual((await pool.query(diskFromRollup("disk_io_1h"))).rows, (await pool.query(diskFromRaw("1 hour"))).rows);
  });
});
