// Unmeasured values (NULL: the agent did not send the metric) roll up as absent, never as 0:
// a bucket where nothing measured a column stays NULL, and averages weigh only measured samples.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { rollupPending } from "@spindle/timeseries";

const server = "00000000-0000-4000-8000-0000000000d4";

describe("rollup of unmeasured values", { skip: skipReason }, () => {
  let plain: PlainDatabase;

  before(async () => {
    plain = await openPlainDatabase("worker_rollup_unmeasured");
  });
  after(async () => {
    await plain?.close();
  });

  it("keeps disk counters NULL where no sample measured them and sums those that were", async () => {
    const { pool } = plain;
    // An OS without merge counters: read_merged never sent; write_ops missing in one sample.
    await pool.query(
      `
      INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_merged, in_progress)
      VALUES ('2026-11-20T10:59:10Z', 'org-a', $1, 'sda', 10, 5, NULL, NULL, NULL),
             ('2026-11-20T10:59:20Z', 'org-a', $1, 'sda', 10, 7, 3, NULL, 2),
             ('2026-11-20T11:00:10Z', 'org-a', $1, 'sda', 10, 1, NULL, NULL, NULL)`,
      [server],
    );
    await rollupPending(pool);
    const minutes = await pool.query(
      `SELECT bucket, read_ops::int, write_ops::int, read_merged, in_progress_max, samples::int
       FROM disk_io_1m WHERE server_id = $1 ORDER BY bucket`,
      [server],
    );
    assert.deepEqual(minutes.rows, [
      { bucket: new Date("2026-11-20T10:59:00Z"), read_ops: 12, write_ops: 3, read_merged: null, in_progress_max: 2, samples: 2 },
      { bucket: new Date("2026-11-20T11:00:00Z"), read_ops: 1, write_ops: null, read_merged: null, in_progress_max: null, samples: 1 },
    ]);
    const hours = await pool.query(
      `SELECT bucket, read_ops::int, write_ops::int, read_merged, in_progress_max FROM disk_io_1h WHERE server_id = $1 ORDER BY bucket`,
      [server],
    );
    assert.deepEqual(hours.rows, [
      { bucket: new Date("2026-11-20T10:00:00Z"), read_ops: 12, write_ops: 3, read_merged: null, in_progress_max: 2 },
      { bucket: new Date("2026-11-20T11:00:00Z"), read_ops: 1, write_ops: null, read_merged: null, in_progress_max: null },
    ]);
  });

  it("averages memory gauges over the minutes that measured them, and leaves the rest NULL", async () => {
    const { pool } = plain;
    // Swap not reported at all; available memory measured in one minute (3 samples) only, while
    // another minute (1 sample) carried the total alone.
    await pool.query(
      `
      INSERT INTO memory (time, org_id, server_id, total_bytes, available_bytes)
      VALUES ('2026-11-20T10:10:10Z', 'org-a', $1, 1000, 300),
             ('2026-11-20T10:10:20Z', 'org-a', $1, 1000, 600),
             ('2026-11-20T10:10:30Z', 'org-a', $1, 1000, 900),
             ('2026-11-20T10:20:00Z', 'org-a', $1, 2000, NULL)`,
      [server],
    );
    await rollupPending(pool);
    const hour = await pool.query(
      `SELECT total_bytes::int, available_bytes::int, available_min_bytes::int, swap_total_bytes, samples::int
       FROM memory_1h WHERE server_id = $1`,
      [server],
    );
    // total: (1000 × 3 + 2000 × 1) / 4; available: 600 from its own 3 samples, not diluted to 450.
    assert.deepEqual(hour.rows, [
      { total_bytes: 1250, available_bytes: 600, available_min_bytes: 300, swap_total_bytes: null, samples: 4 },
    ]);
  });
});
