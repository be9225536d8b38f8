import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import type { ServerMetrics } from "../types/metrics";
import { queryServerMetrics } from "./query-server-metrics";

const now = new Date("2026-11-21T10:00:00Z");
const at = (hhmmss: string) => new Date(`2026-11-21T${hhmmss}Z`);
const epoch = (date: Date) => date.getTime() / 1000;

type DiskSample = { time: Date; device: string; readOps: number; readTimeMs: number; writeOps?: number; writeTimeMs?: number };

describe("queryServerMetrics", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let serverId: string;

  async function insertDisk(sample: DiskSample) {
    const { time, device, readOps, readTimeMs, writeOps = 0, writeTimeMs = 0 } = sample;
    // 10 s interval, 4 KiB reads, 16 KiB writes, device busy 5 s, 2.5 I/Os queued on average.
    await db.pool.query(
      `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
         read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
       VALUES ($1, $2, $3, $4, 10, $5::bigint, $6::bigint, $5::bigint * 4096, $6::bigint * 16384, 0, 0, $7, $8, 5000, 25000, 1)`,
      [time, orgId, serverId, device, readOps, writeOps, readTimeMs, writeTimeMs],
    );
  }

  async function insertMemory(time: Date, availableBytes: number) {
    await db.pool.query(
      `INSERT INTO memory VALUES ($1, $2, $3, 16000000000, $4, 1000000000, 4000000000, 100000000, 50000000, 2000000000, 2000000000)`,
      [time, orgId, serverId, availableBytes],
    );
  }

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Acme"));
    ({ id: serverId } = await createServer(db.prisma, orgId, "db01", now));
    // Two samples in the 09:57 minute with very different latencies: 10 reads at 1 ms, 990 at 11 ms.
    await insertDisk({ time: at("09:57:10"), device: "sda", readOps: 10, readTimeMs: 10 });
    await insertDisk({ time: at("09:57:20"), device: "sda", readOps: 990, readTimeMs: 10_890, writeOps: 20, writeTimeMs: 100 });
    // The agent was stopped for two and a half minutes.
    await insertDisk({ time: at("09:59:50"), device: "sda", readOps: 100, readTimeMs: 200 });
    await insertDisk({ time: at("09:59:50"), device: "sdb", readOps: 50, readTimeMs: 50 });
    await insertDisk({ time: at("08:30:00"), device: "sda", readOps: 300, readTimeMs: 300 }); // outside 1 h, inside 24 h
    await insertDisk({ time: new Date("2026-11-18T12:00:00Z"), device: "sda", readOps: 70, readTimeMs: 70 }); // 7 d only
    await insertMemory(at("09:59:40"), 8_000_000_000);
    await insertMemory(at("09:59:50"), 6_000_000_000);
    await rollUpAggregates(db.pool);
  });
  after(() => db?.drop());

  const device = (metrics: ServerMetrics, name: string) => {
    const found = metrics.devices.find((series) => series.device === name);
    assert.ok(found, `series for ${name}`);
    return found;
  };

  it("draws 1 h from raw samples, one point per interval, with a gap where samples are missing", async () => {
    const metrics = await queryServerMetrics(db, orgId, serverId, "1h", now);
    assert.deepEqual(metrics.source, { disk: "disk_io", memory: "memory" });
    assert.equal(metrics.bucketSeconds, null);
    const sda = device(metrics, "sda");
    assert.deepEqual(sda.time, [epoch(at("09:57:10")), epoch(at("09:57:20")), epoch(at("09:57:30")), epoch(at("09:59:50"))]);
    assert.deepEqual(sda.readIops, [1, 99, null, 10]);
    assert.deepEqual(sda.readLatencyMs, [1, 11, null, 2]);
    assert.deepEqual(sda.writeLatencyMs, [null, 5, null, null], "no writes, no write latency");
    assert.deepEqual(sda.readMegabytesPerSecond, [0.004096, 0.4055, null, 0.04096]);
    assert.deepEqual(sda.utilisationPercent, [50, 50, null, 50]);
    assert.deepEqual(sda.queueDepth, [2.5, 2.5, null, 2.5]);
    assert.deepEqual(device(metrics, "sdb").readIops, [5]);
  });

  it("draws 24 h from 1-minute buckets with I/O-weighted latency", async () => {
    const metrics = await queryServerMetrics(db, orgId, serverId, "24h", now);
    assert.deepEqual(metrics.source, { disk: "disk_io_1m", memory: "memory_1m" });
    assert.equal(metrics.bucketSeconds, 60);
    const sda = device(metrics, "sda");
    assert.deepEqual(sda.time, [
      epoch(at("08:30:00")),
      epoch(at("08:31:00")),
      epoch(at("09:57:00")),
      epoch(at("09:58:00")),
      epoch(at("09:59:00")),
    ]);
    // 09:57: 1,000 reads over 20 s of samples, 10,900 ms in total: 10.9 ms, not (1 + 11) / 2 = 6 ms.
    assert.deepEqual(sda.readIops, [30, null, 50, null, 10]);
    assert.deepEqual(sda.readLatencyMs, [1, null, 10.9, null, 2]);
  });

  it("draws 7 d from 1-hour buckets", async () => {
    const metrics = await queryServerMetrics(db, orgId, serverId, "7d", now);
    assert.deepEqual(metrics.source, { disk: "disk_io_1h", memory: "memory_1h" });
    const sda = device(metrics, "sda");
    assert.equal(sda.time[0], epoch(new Date("2026-11-18T12:00:00Z")));
    assert.deepEqual(sda.time.slice(-2), [epoch(at("08:00:00")), epoch(at("09:00:00"))]);
    // 09:00 holds 1,100 reads taking 11,100 ms in all.
    assert.equal(sda.readLatencyMs.at(-1), 10.09);
    assert.equal(sda.readIops.at(-1), 36.67);
  });

  it("returns memory gauges per sample for 1 h and averaged per bucket beyond", async () => {
    const raw = await queryServerMetrics(db, orgId, serverId, "1h", now);
    assert.deepEqual(raw.memory.time, [epoch(at("09:59:40")), epoch(at("09:59:50"))]);
    assert.deepEqual(raw.memory.availableBytes, [8_000_000_000, 6_000_000_000]);
    const minute = await queryServerMetrics(db, orgId, serverId, "24h", now);
    assert.deepEqual(minute.memory.time, [epoch(at("09:59:00"))]);
    assert.deepEqual(minute.memory.availableBytes, [7_000_000_000]);
    assert.deepEqual(minute.memory.cachedBytes, [4_000_000_000]);
  });

  it("shows what the agent did not measure as a gap, never as 0, raw and rolled up", async () => {
    // An agent that sends operation counts but no timings, and memory without dirty or cached.
    const { id: partial } = await createServer(db.prisma, orgId, "partial01", now);
    for (const time of [at("09:58:10"), at("09:58:20")]) {
      await db.pool.query(
        `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes)
         VALUES ($1, $2, $3, 'vda', 10, 100, 0, 409600, 0)`,
        [time, orgId, partial],
      );
      await db.pool.query(
        `INSERT INTO memory (time, org_id, server_id, total_bytes, available_bytes) VALUES ($1, $2, $3, 16000000000, 8000000000)`,
        [time, orgId, partial],
      );
    }
    await rollUpAggregates(db.pool);
    for (const range of ["1h", "24h"] as const) {
      const metrics = await queryServerMetrics(db, orgId, partial, range, now);
      const vda = device(metrics, "vda");
      const points = vda.time.length;
      assert.deepEqual(vda.readIops, Array(points).fill(10), range);
      for (const unmeasured of ["readLatencyMs", "utilisationPercent", "queueDepth"] as const) {
        assert.deepEqual(vda[unmeasured], Array(points).fill(null), `${range} ${unmeasured}`);
      }
      const samples = metrics.memory.time.length;
      assert.ok(samples > 0);
      assert.deepEqual(metrics.memory.availableBytes, Array(samples).fill(8_000_000_000), range);
      assert.deepEqual(metrics.memory.dirtyBytes, Array(samples).fill(null), `${range} dirty`);
      assert.deepEqual(metrics.memory.cachedBytes, Array(samples).fill(null), `${range} cached`);
    }
  });

  it("keeps each device's series apart and lists devices by name, whichever reported first", async () => {
    // Rows come back in (time, device) order: sdc reports alone first, then both, then sda alone.
    const { id: mixed } = await createServer(db.prisma, orgId, "mixed01", now);
    const sample = (time: Date, device: string, readOps: number) =>
      db.pool.query(
        `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes, read_time_ms)
       VALUES ($1, $2, $3, $4, 10, $5, 0, 0, 0, $5)`,
        [time, orgId, mixed, device, readOps],
      );
    await sample(at("09:58:10"), "sdc", 30);
    await sample(at("09:58:20"), "sdc", 40);
    await sample(at("09:58:20"), "sda", 100);
    await sample(at("09:59:10"), "sda", 200);
    await rollUpAggregates(db.pool);
    const raw = await queryServerMetrics(db, orgId, mixed, "1h", now);
    assert.deepEqual(
      raw.devices.map((series) => series.device),
      ["sda", "sdc"],
    );
    assert.deepEqual(device(raw, "sdc").time, [epoch(at("09:58:10")), epoch(at("09:58:20"))]);
    assert.deepEqual(device(raw, "sdc").readIops, [3, 4]);
    assert.deepEqual(device(raw, "sda").time, [epoch(at("09:58:20")), epoch(at("09:58:30")), epoch(at("09:59:10"))]);
    assert.deepEqual(device(raw, "sda").readIops, [10, null, 20]);
    const minute = await queryServerMetrics(db, orgId, mixed, "24h", now);
    assert.deepEqual(
      minute.devices.map((series) => series.device),
      ["sda", "sdc"],
    );
    assert.deepEqual(device(minute, "sdc").time, [epoch(at("09:58:00"))]);
    assert.deepEqual(device(minute, "sdc").readIops, [3.5]);
    assert.deepEqual(device(minute, "sda").time, [epoch(at("09:58:00")), epoch(at("09:59:00"))]);
    assert.deepEqual(device(minute, "sda").readIops, [10, 20]);
  });

  it("returns empty series before the first interval has arrived", async () => {
    const { id: fresh } = await createServer(db.prisma, orgId, "new01");
    const metrics = await queryServerMetrics(db, orgId, fresh, "1h", now);
    assert.deepEqual(metrics.devices, []);
    assert.deepEqual(metrics.memory.time, []);
  });
});
