// Plain-mode retention against real PostgreSQL: each table loses exactly the rows past its period.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { insertDiskSamples, insertMemorySamples, openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { seedOrganization } from "../test-support/notifications.js";
import { deleteExpiredCurves, deleteExpiredTelemetry, retentionPeriods } from "./retention.js";

/** Nothing deleted anywhere except where the test says. */
const onlyDeleted = (counts: Record<string, number>) => ({ ...Object.fromEntries(retentionPeriods.map((p) => [p.table, 0])), ...counts });

const server = "00000000-0000-4000-8000-0000000000c1";
const now = new Date("2026-11-21T12:00:00Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();

describe("deleteExpiredTelemetry", { skip: skipReason }, () => {
  let plain: PlainDatabase;

  before(async () => {
    plain = await openPlainDatabase("worker_retention");
  });
  after(async () => {
    await plain?.close();
  });

  it("deletes raw rows after 30 days, minutes after 90 days, hours after 2 years, and nothing younger", async () => {
    const { pool } = plain;
    await insertDiskSamples(
      pool,
      [31, 30.9, 29].map((days, n) => ({ time: daysAgo(days), org: "org-a", server, device: "sda", n })),
    );
    await insertMemorySamples(
      pool,
      [31, 29].map((days) => ({ time: daysAgo(days), org: "org-a", server, availableBytes: 6000 })),
    );
    for (const [table, ages] of [
      ["disk_io_1m", [91, 89]],
      ["disk_io_1h", [731, 729]],
    ] as const) {
      for (const age of ages) {
        await pool.query(`INSERT INTO ${table} VALUES ($1, 'org-a', $2, 'sda', 60, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 6)`, [
          daysAgo(age),
          server,
        ]);
      }
    }
    for (const [table, ages] of [
      ["memory_1m", [91, 89]],
      ["memory_1h", [731, 729]],
    ] as const) {
      for (const age of ages) {
        await pool.query(`INSERT INTO ${table} VALUES ($1, 'org-a', $2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6)`, [daysAgo(age), server]);
      }
    }

    // A slice of one row proves the slicing loop reaches every expired row. The job runs as the
    // worker's production login does, holding only spindle_worker.
    const deleted = await deleteExpiredTelemetry(plain.workerPool, { now, sliceRows: 1 });
    assert.deepEqual(deleted, onlyDeleted({ disk_io: 2, memory: 1, disk_io_1m: 1, memory_1m: 1, disk_io_1h: 1, memory_1h: 1 }));

    const oldest = async (table: string, column: string) =>
      (await pool.query(`SELECT min(${column}) AS oldest, count(*)::int AS n FROM ${table}`)).rows[0];
    assert.deepEqual(await oldest("disk_io", "time"), { oldest: new Date(daysAgo(29)), n: 1 });
    assert.deepEqual(await oldest("memory", "time"), { oldest: new Date(daysAgo(29)), n: 1 });
    assert.deepEqual(await oldest("disk_io_1m", "bucket"), { oldest: new Date(daysAgo(89)), n: 1 });
    assert.deepEqual(await oldest("memory_1m", "bucket"), { oldest: new Date(daysAgo(89)), n: 1 });
    assert.deepEqual(await oldest("disk_io_1h", "bucket"), { oldest: new Date(daysAgo(729)), n: 1 });
    assert.deepEqual(await oldest("memory_1h", "bucket"), { oldest: new Date(daysAgo(729)), n: 1 });

    assert.deepEqual(await deleteExpiredTelemetry(plain.workerPool, { now }), onlyDeleted({}));
  });
});

describe("deleteExpiredCurves", { skip: skipReason }, () => {
  let plain: PlainDatabase;

  before(async () => {
    plain = await openPlainDatabase("worker_curve_retention");
  });
  after(async () => {
    await plain?.close();
  });

  it("deletes miss-ratio curves whose window ended over 90 days ago, in every organisation, and nothing younger", async () => {
    const { pool } = plain;
    const servers = { "org-a": "00000000-0000-4000-8000-0000000000d1", "org-b": "00000000-0000-4000-8000-0000000000d2" };
    for (const [org, id] of Object.entries(servers)) {
      await seedOrganization(pool, org, id, []);
      for (const days of [91, 90.5, 89]) {
        await pool.query(
          `INSERT INTO cache_mrc (org_id, server_id, time, window_seconds, curve, scope, sample_rate, sampled_accesses, sizes_bytes, hit_ratios)
           VALUES ($1, $2, $3, 300, 'page_cache', '', 0.01, 1000, '{409600, 819200}', '{0.2, 0.5}')`,
          [org, id, daysAgo(days)],
        );
      }
    }
    // Slices of one row reach every expired row; the worker's own login runs it.
    assert.equal(await deleteExpiredCurves(plain.workerPool, { now, sliceRows: 1 }), 4);
    const left = await pool.query("SELECT org_id, min(time) AS oldest, count(*)::int AS n FROM cache_mrc GROUP BY org_id ORDER BY org_id");
    assert.deepEqual(left.rows, [
      { org_id: "org-a", oldest: new Date(daysAgo(89)), n: 1 },
      { org_id: "org-b", oldest: new Date(daysAgo(89)), n: 1 },
    ]);
    assert.equal(await deleteExpiredCurves(plain.workerPool, { now }), 0);
  });
});
