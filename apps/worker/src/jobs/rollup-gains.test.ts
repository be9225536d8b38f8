// The plain-mode rollup of the acceleration-gains families against real PostgreSQL: minute and
// hour buckets equal the raw sums and counts, the memory-hit latency's mean merges exactly over
// a coarser window, a column never sent stays NULL, two servers stay apart, and rows age out
// like the other families.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { findFamily, type RolledUpFamily } from "@spindle/domain";
import { deleteExpiredTelemetry } from "./retention.js";
import { rollupPending } from "@spindle/timeseries";

const serverA = "00000000-0000-4000-8000-0000000000f1";
const serverB = "00000000-0000-4000-8000-0000000000f2";

/** Minute or hour buckets computed straight from raw rows, with the same bucketing as TimescaleDB. */
const aggregatesOf = (source: string) => (findFamily(source) as RolledUpFamily).aggregates;
/** The family's key columns (a hash bucket), after the server, as ", key" each. */
const keysOf = (source: string) => (findFamily(source) as RolledUpFamily).keys.map((k) => `, ${k}`).join("");
const fromRaw = (source: string, width: string) => `
    SELECT date_bin(INTERVAL '${width}', time, TIMESTAMPTZ '2000-01-03') AS bucket, server_id${keysOf(source)},
           ${aggregatesOf(source)
             .map((a) => `${a.fromRaw.replaceAll("s.", "")} AS ${a.name}`)
             .join(", ")}
    FROM ${source} GROUP BY bucket, server_id${keysOf(source)} ORDER BY bucket, server_id${keysOf(source)}`;
const fromRollup = (source: string, table: string) =>
  `SELECT bucket, server_id${keysOf(source)}, ${aggregatesOf(source)
    .map((a) => a.name)
    .join(", ")} FROM ${table} ORDER BY bucket, server_id${keysOf(source)}`;

describe("rollupPending for the acceleration-gains families", { skip: skipReason }, () => {
  let plain: PlainDatabase;

  before(async () => {
    plain = await openPlainDatabase("worker_rollup_gains");
  });
  after(async () => {
    await plain?.close();
  });

  it("builds minutes and hours equal to the raw sums and merges the memory-hit latency exactly", async () => {
    const { pool } = plain;
    // Server A: four read-cache intervals over two minutes and two hours; the latency measured
    // twice (1 µs over 1000 reads, then 4 µs over 500); pinned bytes never sent.
    await pool.query(
      `INSERT INTO read_cache (time, org_id, server_id, interval_seconds, budget_bytes, resident_bytes, managed_files,
                               hits_bytes, misses_bytes, prefetched_bytes, dropped_behind_bytes, backoffs,
                               memory_read_latency_seconds, memory_read_latency_samples)
       VALUES ('2026-11-20T10:59:40Z', 'org-a', $1, 10, 1000, 100, 3, 4096, 0, 0, 0, 0, 0.000001, 1000),
              ('2026-11-20T10:59:50Z', 'org-a', $1, 10, 2000, 300, 3, 8192, 4096, 0, 0, 1, 0.000001, 1000),
              ('2026-11-20T11:00:00Z', 'org-a', $1, 10, 3000, NULL, 3, 0, 0, 0, 0, 0, 0.000004, 500),
              ('2026-11-20T11:00:10Z', 'org-a', $1, 10, 4000, 500, 4, 12288, 0, 65536, 0, 0, NULL, NULL)`,
      [serverA],
    );
    await pool.query(
      `INSERT INTO read_cache (time, org_id, server_id, interval_seconds, hits_bytes) VALUES ('2026-11-20T10:59:40Z', 'org-b', $1, 10, 77)`,
      [serverB],
    );
    await pool.query(
      `INSERT INTO write_opt (time, org_id, server_id, interval_seconds, preallocated_bytes, fragments_prevented, files_defragmented,
                              managed_grown_bytes, managed_extents_added, unmanaged_grown_bytes, unmanaged_extents_added)
       VALUES ('2026-11-20T10:59:50Z', 'org-a', $1, 10, 1048576, 4, NULL, 65536, 0, 65536, 9),
              ('2026-11-20T11:00:00Z', 'org-a', $1, 10, 0, 1, NULL, 4096, 1, 8192, 3)`,
      [serverA],
    );
    // The control group: two intervals at 10 %, one after a policy that held nothing out.
    await pool.query(
      `INSERT INTO read_cache_holdout (time, org_id, server_id, interval_seconds, holdout_percent, managed_accessed_bytes, managed_missed_bytes,
                                       control_accessed_bytes, control_missed_bytes, own_read_bytes, own_page_hit_bytes)
       VALUES ('2026-11-20T10:59:50Z', 'org-a', $1, 10, 10, 36864, 4096, 4096, 4096, 8192, 4096),
              ('2026-11-20T11:00:00Z', 'org-a', $1, 10, 10, 40960, 0, 8192, 0, 0, 0),
              ('2026-11-20T11:00:10Z', 'org-a', $1, 10, 0, 4096, 0, 0, 0, 0, 0)`,
      [serverA],
    );
    // Per hash bucket: two buckets in each of the first two intervals, each its own row per minute and hour.
    await pool.query(
      `INSERT INTO read_cache_holdout_bucket (time, org_id, server_id, hash_bucket, interval_seconds, managed_accessed_bytes, managed_missed_bytes,
                                              control_accessed_bytes, control_missed_bytes)
       VALUES ('2026-11-20T10:59:50Z', 'org-a', $1, 0, 10, 20480, 4096, 4096, 4096),
              ('2026-11-20T10:59:50Z', 'org-a', $1, 15, 10, 16384, 0, 0, 0),
              ('2026-11-20T11:00:00Z', 'org-a', $1, 0, 10, 40960, 0, 8192, 0),
              ('2026-11-20T11:00:00Z', 'org-a', $1, 15, 10, 0, 0, 0, 0)`,
      [serverA],
    );
    const result = await rollupPending(pool);
    assert.deepEqual(result, { rangesProcessed: 5, serversRolledUp: 2 });

    for (const source of ["read_cache", "read_cache_holdout", "read_cache_holdout_bucket", "write_opt"]) {
      const minutes = (await pool.query(fromRollup(source, `${source}_1m`))).rows;
      assert.ok(minutes.length >= 2, `${source}: rows in more than one minute`);
      assert.deepEqual(minutes, (await pool.query(fromRaw(source, "1 minute"))).rows, `${source}_1m`);
      assert.deepEqual(
        (await pool.query(fromRollup(source, `${source}_1h`))).rows,
        (await pool.query(fromRaw(source, "1 hour"))).rows,
        `${source}_1h`,
      );
    }

    // Hand-computed: over the whole range, mean latency = (1e-6·1000·2 + 4e-6·500) / 2500 = 1.6 µs,
    // whether merged from the hours or from the minutes.
    for (const table of ["read_cache_1m", "read_cache_1h"]) {
      const { rows } = await pool.query(
        `SELECT sum(memory_read_latency_weighted_seconds) / sum(memory_read_latency_samples) AS mean, sum(memory_read_latency_samples)::int AS samples,
                sum(resident_bytes_sum)::int AS resident, sum(resident_bytes_samples)::int AS resident_n,
                sum(pinned_bytes_sum) AS pinned, sum(pinned_bytes_samples)::int AS pinned_n, sum(hits_bytes)::int AS hits
         FROM ${table} WHERE server_id = $1`,
        [serverA],
      );
      const [row] = rows;
      assert.ok(Math.abs(row.mean - 0.0000016) < 1e-15, `${table}: mean ${row.mean}`);
      assert.deepEqual(
        { ...row, mean: 0 },
        { mean: 0, samples: 2500, resident: 900, resident_n: 3, pinned: null, pinned_n: 0, hits: 24576 },
        table,
      );
    }
    const written = await pool.query("SELECT files_defragmented, samples FROM write_opt_1h WHERE server_id = $1 ORDER BY bucket", [
      serverA,
    ]);
    assert.deepEqual(written.rows, [
      { files_defragmented: null, samples: "1" },
      { files_defragmented: null, samples: "1" },
    ]);
    const holdout = await pool.query(
      `SELECT sum(holdout_percent_sum)::int AS percent, sum(holdout_percent_samples)::int AS n, sum(control_accessed_bytes)::int AS control,
              sum(samples)::int AS samples FROM read_cache_holdout_1h WHERE server_id = $1`,
      [serverA],
    );
    assert.deepEqual(holdout.rows, [{ percent: 20, n: 3, control: 12288, samples: 3 }]);
    const buckets = await pool.query(
      `SELECT hash_bucket, sum(managed_accessed_bytes)::int AS managed, sum(control_accessed_bytes)::int AS control, sum(samples)::int AS samples
       FROM read_cache_holdout_bucket_1h WHERE server_id = $1 GROUP BY hash_bucket ORDER BY hash_bucket`,
      [serverA],
    );
    assert.deepEqual(buckets.rows, [
      { hash_bucket: 0, managed: 61440, control: 12288, samples: 2 },
      { hash_bucket: 15, managed: 16384, control: 0, samples: 2 },
    ]);
    const other = await pool.query("SELECT org_id, hits_bytes FROM read_cache_1h WHERE server_id = $1", [serverB]);
    assert.deepEqual(other.rows, [{ org_id: "org-b", hits_bytes: "77" }]);
  });

  it("ages acceleration rows out on the same schedule as disk_io", async () => {
    const deleted = await deleteExpiredTelemetry(plain.pool, { now: new Date("2026-12-25T12:00:00Z") });
    assert.equal(deleted.read_cache, 5);
    assert.equal(deleted.write_opt, 2);
    assert.equal(deleted.read_cache_holdout, 3);
    assert.equal(deleted.read_cache_holdout_bucket, 4);
    assert.equal(deleted.read_cache_1m, 0, "minutes are kept 90 days");
    const hours = await deleteExpiredTelemetry(plain.pool, { now: new Date("2029-01-01T00:00:00Z") });
    assert.equal(hours.read_cache_1h, 3);
    assert.equal(hours.write_opt_1h, 2);
  });
});
