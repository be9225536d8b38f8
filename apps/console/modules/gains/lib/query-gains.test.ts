import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { causedReadsSaved, describeMeasured, type HoldoutBucketCounts } from "@spindle/domain";
import { ProblemError } from "@/lib/problem";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import type { FleetGains, ServerGains } from "../types/gains";
import { exportGainsCsv } from "./export-gains";
import { queryFleetGains, queryServerGains } from "./query-gains";

const now = new Date("2026-11-21T10:00:00Z");
const at = (hhmmss: string) => new Date(`2026-11-21T${hhmmss}Z`);
const gib = 1024 ** 3;

// Hand-computed expectations for db01 over the last hour (two 10 s intervals):
// hits 2 × 20,480,000 B = 40,960,000 B (10,000 pages); misses 2 × 4,096,000 B = 8,192,000 B.
// sda read 1,000 × 8 KiB (diskstats) and its histogram 1,000 reads taking 5 s: 5 ms each.
// Memory reads 2 µs, 4,096 timed reads per measurement, sent in both intervals (8,192 counted).
// Reads from memory describe what happened; they are not a saving. The caused figures come from
// the control group: twelve 10 s intervals, each with managed 900 page accesses / 90 misses and
// control 100 / 30, so the cache saved 10,800 × (0.3 − 0.1) = 2,160 pages = 1,080 reads of 8 KiB
// (an interval of one point: every interval alike), and 1,080 × (5 ms − 2 × 2 µs) = 5.39568 s.
// sda was busy 1 ms per read: 1,000 reads in 1 s of the 20 s observed, far from its bound.
// Each interval also comes in 16 hash buckets of a sixteenth each, except that the even buckets'
// managed groups missed 120 of 900 pages and the odd ones' 60 (90 overall): the interval comes
// from the buckets summed across the twelve intervals, no longer a single point.
const bucketsPerInterval: HoldoutBucketCounts[] = Array.from({ length: 16 }, (_, bucket) => ({
  bucket,
  managedAccessedBytes: (900 * 4096) / 16,
  managedMissedBytes: ((bucket % 2 === 0 ? 120 : 60) * 4096) / 16,
  controlAccessedBytes: (100 * 4096) / 16,
  controlMissedBytes: (30 * 4096) / 16,
}));
// What the twelve intervals' buckets give, in reads of 8 KiB (2 pages).
const expectedInterval = (() => {
  const unit = {
    holdoutShare: 0.1,
    managedAccessedBytes: 900 * 4096,
    managedMissedBytes: 90 * 4096,
    controlAccessedBytes: 100 * 4096,
    controlMissedBytes: 30 * 4096,
  };
  const counts = bucketsPerInterval.map((b) => ({
    ...b,
    managedAccessedBytes: 12 * b.managedAccessedBytes,
    managedMissedBytes: 12 * b.managedMissedBytes,
    controlAccessedBytes: 12 * b.controlAccessedBytes,
    controlMissedBytes: 12 * b.controlMissedBytes,
  }));
  const caused = causedReadsSaved({
    units: Array.from({ length: 12 }, () => unit),
    samples: 12,
    ownReadBytes: null,
    ownPageHitBytes: null,
    buckets: { counts, intervals: 12 },
  });
  assert.ok(caused.status === "measured" && caused.value.interval.method === "hash-buckets");
  return { low: caused.value.interval.lowPages / 2, high: caused.value.interval.highPages / 2 };
})();

describe("queryServerGains / queryFleetGains", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let otherOrgId: string;
  let serverId: string;
  let idleServerId: string;

  async function insertReadCache(
    server: string,
    time: Date,
    row: { hits: number | null; misses: number | null; latency: number | null; samples: number | null },
  ) {
    await db.pool.query(
      `INSERT INTO read_cache (time, org_id, server_id, interval_seconds, budget_bytes, resident_bytes, pinned_bytes, managed_files,
         hits_bytes, misses_bytes, prefetched_bytes, dropped_behind_bytes, backoffs, memory_read_latency_seconds, memory_read_latency_samples)
       VALUES ($1, $2, $3, 10, 1073741824, 52428800, 0, 12, $4, $5, 0, 0, 0, $6, $7)`,
      [time, orgId, server, row.hits, row.misses, row.latency, row.samples],
    );
  }

  async function insertStorage(server: string, time: Date, device: string, readOps: number, latencySeconds: number | null) {
    await db.pool.query(
      `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
         read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
       VALUES ($1, $2, $3, $4, 10, $5::bigint, 0, $5::bigint * 8192, 0, 0, 0, 0, 0, $5::bigint, 0, 0)`,
      [time, orgId, server, device, readOps],
    );
    if (latencySeconds === null) return;
    const buckets = Array.from({ length: 28 }, (_, i) => (i === 12 ? readOps : 0));
    await db.pool.query(
      `INSERT INTO disk_latency VALUES ($1, $2, $3, $4, 'read', 10, $5, $6, ${buckets.map((_, i) => `$${7 + i}`).join(", ")})`,
      [time, orgId, server, device, readOps, readOps * latencySeconds, ...buckets],
    );
  }

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Acme"));
    ({ orgId: otherOrgId } = await createOrganisation(db.prisma, "Other"));
    ({ id: serverId } = await createServer(db.prisma, orgId, "db01", now));
    ({ id: idleServerId } = await createServer(db.prisma, orgId, "web01", now));
    for (const time of [at("09:58:10"), at("09:58:20")]) {
      await insertReadCache(serverId, time, { hits: 20_480_000, misses: 4_096_000, latency: 2e-6, samples: 4096 });
      await insertStorage(serverId, time, "sda", 500, 0.005);
    }
    for (let i = 0; i < 12; i++) {
      const time = new Date(at("09:57:00").getTime() + i * 10_000);
      await db.pool.query(
        `INSERT INTO read_cache_holdout (time, org_id, server_id, interval_seconds, holdout_percent, managed_accessed_bytes, managed_missed_bytes,
           control_accessed_bytes, control_missed_bytes, own_read_bytes, own_page_hit_bytes)
         VALUES ($1, $2, $3, 10, 10, ${900 * 4096}, ${90 * 4096}, ${100 * 4096}, ${30 * 4096}, 0, ${25 * 4096})`,
        [time, orgId, serverId],
      );
      for (const bucket of bucketsPerInterval) {
        await db.pool.query(
          `INSERT INTO read_cache_holdout_bucket (time, org_id, server_id, hash_bucket, interval_seconds, managed_accessed_bytes, managed_missed_bytes,
             control_accessed_bytes, control_missed_bytes) VALUES ($1, $2, $3, $4, 10, $5, $6, $7, $8)`,
          [
            time,
            orgId,
            serverId,
            bucket.bucket,
            bucket.managedAccessedBytes,
            bucket.managedMissedBytes,
            bucket.controlAccessedBytes,
            bucket.controlMissedBytes,
          ],
        );
      }
    }
    // Outside the hour, inside 24 h: counted by the 24 h range only.
    await insertReadCache(serverId, at("08:00:00"), { hits: 4096, misses: 0, latency: 2e-6, samples: 4096 });
    await db.pool.query(
      `INSERT INTO write_opt (time, org_id, server_id, interval_seconds, preallocated_bytes, fragments_prevented, files_defragmented,
         managed_grown_bytes, managed_extents_added, unmanaged_grown_bytes, unmanaged_extents_added)
       VALUES ($1, $2, $3, 10, 67108864, 7, 3, $4, 10, $5, 50)`,
      [at("09:59:00"), orgId, serverId, 2 * gib, gib],
    );
    // web01 sends diskstats but no read-cache rows and no latency histogram.
    await insertStorage(idleServerId, at("09:59:00"), "vda", 10, null);
    await rollUpAggregates(db.pool);
  });
  after(() => db?.drop());

  const ledgerValue = (gains: Pick<ServerGains, "ledger">, key: string) => {
    const line = gains.ledger.find((candidate) => candidate.key === key)!;
    return line.effect.status === "measured" ? line.effect.value : line.effect.reason;
  };

  it("measures reads, both latencies and time saved over the last hour from raw rows", async () => {
    const gains = await queryServerGains(db, orgId, serverId, { range: "1h" }, now);
    assert.equal(gains.range.resolution, "raw");
    assert.equal(gains.reads.status, "measured");
    assert.equal(gains.reads.value.memoryBytes, 40_960_000);
    assert.equal(gains.reads.value.memoryOperations, 10_000);
    assert.equal(gains.reads.value.storageOperations, 1000);
    assert.equal(gains.storageReadLatencySeconds.status === "measured" && gains.storageReadLatencySeconds.value, 0.005);
    assert.equal(gains.memoryReadLatencySeconds.status === "measured" && gains.memoryReadLatencySeconds.value, 2e-6);
    assert.equal(gains.causedReads.status, "measured", JSON.stringify(gains.causedReads));
    assert.ok(Math.abs(gains.causedReads.value.savedIos - 1080) < 1e-9, `${gains.causedReads.value.savedIos}`);
    // The buckets' spread gives the interval width; the raw bucket rows were summed per bucket.
    assert.ok(expectedInterval.low < 1080 - 50 && expectedInterval.high > 1080 + 50, JSON.stringify(expectedInterval));
    assert.ok(
      Math.abs(gains.causedReads.value.interval.low - expectedInterval.low) < 1e-6 &&
        Math.abs(gains.causedReads.value.interval.high - expectedInterval.high) < 1e-6,
      JSON.stringify(gains.causedReads.value.interval),
    );
    assert.deepEqual(
      gains.causedReads.value.estimate.interval.method === "hash-buckets" && [
        gains.causedReads.value.estimate.interval.buckets,
        gains.causedReads.value.estimate.interval.degreesOfFreedom,
      ],
      [16, 15],
    );
    assert.equal(gains.ledger.find((line) => line.key === "storageIosSaved")!.note, undefined, "the interval sees the draw: no note");
    assert.equal(gains.causedReads.value.capped, false);
    assert.equal(gains.causedTime.status, "measured");
    assert.ok(Math.abs(gains.causedTime.value.seconds - 5.39568) < 1e-9, `${gains.causedTime.value.seconds}`);
    assert.deepEqual(
      gains.causedTime.basis.map((input) => [input.label, input.samples]),
      [
        ["control group (left unmanaged)", 1200],
        ["managed group", 10_800],
        ["mean storage read size", 1000],
        ["what the devices could have served", 20],
        ["storage read latency", 1000],
        ["memory read latency", 8192],
      ],
    );
    // 12 × 25 pages of first hits on the cache's pages: 300 × 4 KiB / 8 KiB = 150 reads, a lower bound.
    assert.equal(gains.ownPageHits.status === "measured" && gains.ownPageHits.value, 150);
    assert.equal(ledgerValue(gains, "storageIosSaved"), gains.causedReads.value.savedIos);
    assert.ok(Math.abs((ledgerValue(gains, "fragmentsPrevented") as number) - 90) < 1e-9);
    assert.equal(ledgerValue(gains, "filesDefragmented"), 3);
    assert.equal(gains.devices.length, 1);
    assert.equal(gains.devices[0]!.meanReadBytes.status === "measured" && gains.devices[0]!.meanReadBytes.value, 8192);
    assert.deepEqual(gains.series.memoryBytesPerSecond, [2_048_000, 2_048_000]);
    assert.deepEqual(gains.series.storageBytesPerSecond, [409_600, 409_600]);
  });

  it("sums the same figures from the 1-minute aggregates over 24 h, exactly", async () => {
    const gains = await queryServerGains(db, orgId, serverId, { range: "24h" }, now);
    assert.equal(gains.range.resolution, "1m");
    assert.equal(gains.reads.status === "measured" && gains.reads.value.memoryBytes, 40_964_096);
    assert.equal(
      gains.memoryReadLatencySeconds.status === "measured" && Number(gains.memoryReadLatencySeconds.value.toPrecision(12)),
      2e-6,
    );
    assert.equal(gains.storageReadLatencySeconds.status === "measured" && gains.storageReadLatencySeconds.value, 0.005);
    // Twelve intervals are two minutes: too few independent units at this resolution to say.
    assert.equal(gains.causedReads.status, "not-measured");
    assert.match(describeMeasured(gains.causedReads), /not enough control accesses: .* in 2 intervals/);
  });

  it("says not measured, and why, where a server sent no read cache or histogram", async () => {
    const gains = await queryServerGains(db, orgId, idleServerId, { range: "1h" }, now);
    assert.equal(gains.reads.status, "not-measured");
    assert.equal(gains.causedReads.status, "not-measured");
    assert.equal(gains.causedTime.status, "not-measured");
    assert.equal(gains.storageReadLatencySeconds.status, "not-measured");
    assert.match(ledgerValue(gains, "storageIosSaved") as string, /no control-group counts/);
    assert.deepEqual(gains.series.time, []);
  });

  it("lists every server of the fleet and adds the measured lines", async () => {
    const fleet: FleetGains = await queryFleetGains(db, orgId, { range: "1h" }, now);
    assert.deepEqual(
      fleet.servers.map((server) => server.hostname),
      ["db01", "web01"],
    );
    const timeSaved = fleet.ledger.find((line) => line.key === "storageTimeSaved")!;
    assert.equal(timeSaved.effect.status, "measured");
    assert.deepEqual(
      timeSaved.notMeasuredOn?.map((entry) => entry.server),
      ["web01"],
    );
  });

  it("exports the ledger and the series as CSV", async () => {
    const ledger = await exportGainsCsv(db, orgId, { what: "ledger", serverId, range: "1h" }, now);
    assert.match(ledger.name, /^spindle-gains-ledger-db01-2026-11-21T1000\.csv$/);
    assert.match(ledger.body, /\r\nserver,db01,read-cache,Reads served from memory \(managed files\),By,40960000,measured,/);
    const saved =
      /\r\nserver,db01,read-cache,Storage reads saved \(caused\),\{io\},1080,measured,.*,caused,([^,]+),([^,]+),0\.95,\r\n/.exec(
        ledger.body,
      );
    assert.ok(
      saved && Math.abs(Number(saved[1]) - expectedInterval.low) < 1e-6 && Math.abs(Number(saved[2]) - expectedInterval.high) < 1e-6,
      ledger.body,
    );
    const fleet = await exportGainsCsv(db, orgId, { what: "ledger", range: "1h" }, now);
    assert.match(
      fleet.body,
      /\r\nfleet,,read-cache,Reads served from memory \(managed files\),By,40960000,measured,"sum of the servers that measured it: db01, 1 of 2 servers",/,
    );
    const series = await exportGainsCsv(db, orgId, { what: "series", serverId, range: "1h" }, now);
    assert.equal(series.body.split("\r\n")[1], "2026-11-21T09:58:10.000Z,db01,2048000,409600");
  });

  it("answers 404 for another organisation's server and never reads its rows", async () => {
    await assert.rejects(
      queryServerGains(db, otherOrgId, serverId, { range: "1h" }, now),
      (error) => error instanceof ProblemError && error.status === 404,
    );
    const fleet = await queryFleetGains(db, otherOrgId, { range: "1h" }, now);
    assert.deepEqual(fleet.servers, []);
    assert.ok(fleet.ledger.every((line) => line.effect.status === "not-measured"));
  });
});
