import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { queryDeepTelemetry } from "./query-deep-telemetry";

const now = new Date("2026-11-21T10:00:00Z");
const at = (hhmmss: string) => new Date(`2026-11-21T${hhmmss}Z`);
const epoch = (date: Date) => date.getTime() / 1000;
const buckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);

describe("queryDeepTelemetry", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let serverId: string;

  async function insertLatency(time: Date, operation: string, counts: Record<number, number>, sumSeconds: number) {
    const values = buckets.map((_, i) => counts[i] ?? 0);
    const total = values.reduce((a, b) => a + b, 0);
    await db.pool.query(
      `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${buckets.join(", ")})
       VALUES ($1, $2, $3, 'sda', $4, 10, $5, $6, ${values.join(", ")})`,
      [time, orgId, serverId, operation, total, sumSeconds],
    );
  }

  /** Brings the 1-minute rollups up to date the way the worker (or TimescaleDB) does. */
  async function rollUpMinutes(table: string, keys: string[], sums: string[]) {
    const kind = await db.pool.query<{ relkind: string }>("SELECT relkind FROM pg_class WHERE relname = $1", [`${table}_1m`]);
    if (kind.rows[0]?.relkind !== "r") {
      await db.pool.query(`CALL refresh_continuous_aggregate('${table}_1m', NULL, NULL)`);
      return;
    }
    const columns = ["interval_seconds", ...sums];
    await db.pool.query(`TRUNCATE ${table}_1m`);
    await db.pool.query(
      `INSERT INTO ${table}_1m (bucket, org_id, server_id, ${keys.map((k) => `${k}, `).join("")}${columns.join(", ")}, samples)
       SELECT date_trunc('minute', time), org_id, server_id, ${keys.map((k) => `${k}, `).join("")}${columns.map((c) => `sum(${c})`).join(", ")}, count(*)
       FROM ${table} GROUP BY ${[1, 2, 3, ...keys.map((_, i) => 4 + i)].join(", ")}`,
    );
  }

  /** sqlserver_stats_1m as the worker's rollup (or TimescaleDB's continuous aggregate) has it. */
  async function rollUpSqlServerMinutes() {
    const kind = await db.pool.query<{ relkind: string }>("SELECT relkind FROM pg_class WHERE relname = 'sqlserver_stats_1m'");
    if (kind.rows[0]?.relkind !== "r") {
      await db.pool.query("CALL refresh_continuous_aggregate('sqlserver_stats_1m', NULL, NULL)");
      return;
    }
    await db.pool.query(
      `INSERT INTO sqlserver_stats_1m
       SELECT date_trunc('minute', time), org_id, server_id, instance, sum(interval_seconds), sum(batch_requests),
              sum(interval_seconds) FILTER (WHERE batch_requests IS NOT NULL), sum(buffer_cache_hit_ratio), count(buffer_cache_hit_ratio),
              sum(page_life_expectancy_s), count(*)
       FROM sqlserver_stats GROUP BY 1, 2, 3, 4`,
    );
  }

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Acme"));
    ({ id: serverId } = await createServer(db.prisma, orgId, "db01", now));
    // 09:57:10: 100 reads, 90 in (64, 128] µs, 10 in (8.192, 16.384] ms. 09:57:20: 100 reads in (1.024, 2.048] ms.
    await insertLatency(at("09:57:10"), "read", { 7: 90, 14: 10 }, 0.1);
    await insertLatency(at("09:57:20"), "read", { 11: 100 }, 0.15);
    await insertLatency(at("09:59:50"), "flush", { 12: 1 }, 0.003);
    await db.pool.query(`INSERT INTO disk_split_io VALUES ($1, $2, $3, 'sda', 10, 50), ($4, $2, $3, 'sda', 10, 150)`, [
      at("09:57:10"),
      orgId,
      serverId,
      at("09:57:20"),
    ]);
    await db.pool.query(`INSERT INTO page_cache VALUES ($1, $2, $3, 10, 1000, 100), ($4, $2, $3, 10, 3000, 0)`, [
      at("09:57:10"),
      orgId,
      serverId,
      at("09:57:20"),
    ]);
    await db.pool.query(
      `INSERT INTO pg_database_stats VALUES ($1, $2, $3, 'shop', 10, 500, 5, 9000, 1000, 0), ($4, $2, $3, 'shop', 10, 1500, 5, 9900, 100, 0)`,
      [at("09:57:10"), orgId, serverId, at("09:57:20")],
    );
    await db.pool.query(
      `INSERT INTO fragmentation_scans VALUES ($1, $2, $3, '/srv', 10, 2, 40, 30, NULL, 200), ($4, $2, $3, '/srv', 10, 1, 20, 10, 0, 150)`,
      [at("08:00:00"), orgId, serverId, at("09:00:00")],
    );
    await db.pool.query(
      `INSERT INTO fragmentation_worst_files VALUES ($1, $2, '/srv', '/srv/a.db', 7, 4096, $3), ($1, $2, '/srv', '/srv/b.db', 12, 8192, $3)`,
      [orgId, serverId, at("09:00:00")],
    );
    await db.pool.query(
      `INSERT INTO page_cache_top_files VALUES ($1, $2, '/var/lib/postgresql/16/main/base/5/16384', 4000, 1000, 10, $3),
         ($1, $2, 'inode:2049:131077', 200, 0, 10, $3), ($1, $2, '/var/log/app.log', 4000, 4000, 10, $3)`,
      [orgId, serverId, at("09:59:50")],
    );
    await db.pool.query(
      `INSERT INTO agents (org_id, server_id, credential_hash, telemetry_capabilities, telemetry_capabilities_at)
       VALUES ($1, $2, $3, '{ebpf.block_latency,ebpf.block_split}', $4)`,
      [orgId, serverId, randomBytes(32), at("09:59:50")],
    );
    // SQL Server: the first sample after the agent started has no batch count and no hit ratio yet.
    await db.pool.query(
      `INSERT INTO sqlserver_stats (time, org_id, server_id, instance, interval_seconds, batch_requests, buffer_cache_hit_ratio, page_life_expectancy_s)
       VALUES ($1, $2, $3, 'MSSQLSERVER', 10, NULL, NULL, 300), ($4, $2, $3, 'MSSQLSERVER', 10, 400, 0.9, 310),
              ($5, $2, $3, 'MSSQLSERVER', 10, 600, 0.8, 320)`,
      [at("09:57:10"), orgId, serverId, at("09:57:20"), at("09:57:30")],
    );
    await rollUpSqlServerMinutes();
    await rollUpMinutes("disk_latency", ["device", "operation"], ["operations", "sum_seconds", ...buckets]);
    await rollUpMinutes("pg_database_stats", ["database"], ["commits", "rollbacks", "blocks_hit", "blocks_read", "block_read_time_us"]);
  });
  after(() => db?.drop());

  it("draws latency percentiles per sample from bucket edges, and merges buckets for the range summary", async () => {
    const deep = await queryDeepTelemetry(db, orgId, serverId, "1h", now);
    const read = deep.latency.find((series) => series.operation === "read");
    assert.ok(read);
    assert.deepEqual(read.time, [epoch(at("09:57:10")), epoch(at("09:57:20"))]);
    assert.deepEqual(read.p50Ms, [0.128, 2.048]);
    assert.deepEqual(read.p99Ms, [16.38, 2.048]);
    // 200 reads merged: 90 in (64, 128] µs, 100 in (1.024, 2.048] ms, 10 in (8.192, 16.384] ms, so rank 100 (p50)
    // and rank 190 (p95) fall in (1.024, 2.048] ms and rank 198 (p99) in (8.192, 16.384] ms.
    assert.deepEqual(read.summary, { operations: 200, p50: "≤ 2.048 ms", p95: "≤ 2.048 ms", p99: "≤ 16.38 ms", averageMs: 1.25 });
    assert.deepEqual(
      deep.latency.map((s) => s.operation),
      ["read", "flush"],
    );
  });

  it("reads 24 h from the 1-minute rollup with the same merged percentiles", async () => {
    const deep = await queryDeepTelemetry(db, orgId, serverId, "24h", now);
    const read = deep.latency.find((series) => series.operation === "read");
    assert.deepEqual(read?.time, [epoch(at("09:57:00"))]);
    assert.deepEqual(read?.p50Ms, [2.048]);
    assert.equal(read?.summary.p99, "≤ 16.38 ms");
    assert.deepEqual(deep.databases[0]?.overall, { transactionsPerSecond: 100, rollbacksPerSecond: 0.5, bufferHitRatioPercent: 94.5 });
  });

  it("gives split I/O per second, cache and buffer hit ratios from sums", async () => {
    const deep = await queryDeepTelemetry(db, orgId, serverId, "1h", now);
    assert.deepEqual(deep.splitIo, [
      { device: "sda", time: [epoch(at("09:57:10")), epoch(at("09:57:20"))], splitIosPerSecond: [5, 15], averagePerSecond: 10 },
    ]);
    assert.deepEqual(deep.cacheHit.hitRatioPercent, [90, 100]);
    assert.equal(deep.cacheHit.overallPercent, 97.5, "1 − 100 / 4000, not the mean of 90 and 100");
    assert.deepEqual(deep.databases[0]?.transactionsPerSecond, [50, 150]);
    assert.deepEqual(deep.databases[0]?.bufferHitRatioPercent, [90, 99]);
  });

  it("gives SQL Server rates and means over the intervals that measured them, not counting the first as 0", async () => {
    const hour = await queryDeepTelemetry(db, orgId, serverId, "1h", now);
    const [raw] = hour.sqlServers;
    assert.equal(hour.sqlServers.length, 1);
    assert.equal(raw?.instance, "MSSQLSERVER");
    assert.deepEqual(raw?.time, [epoch(at("09:57:10")), epoch(at("09:57:20")), epoch(at("09:57:30"))]);
    assert.deepEqual(raw?.batchRequestsPerSecond, [null, 40, 60]);
    assert.deepEqual(raw?.bufferHitRatioPercent, [null, 90, 80]);
    assert.deepEqual(raw?.pageLifeExpectancySeconds, [300, 310, 320]);
    // 1,000 batches over the 20 s that measured them; hit ratio over the two samples that had one.
    assert.deepEqual(raw?.overall, { batchRequestsPerSecond: 50, bufferHitRatioPercent: 85, pageLifeExpectancySeconds: 310 });
    const day = await queryDeepTelemetry(db, orgId, serverId, "24h", now);
    assert.deepEqual(
      day.sqlServers.map((s) => [s.time, s.batchRequestsPerSecond, s.bufferHitRatioPercent, s.pageLifeExpectancySeconds, s.overall]),
      [
        [
          [epoch(at("09:57:00"))],
          [50],
          [85],
          [310],
          { batchRequestsPerSecond: 50, bufferHitRatioPercent: 85, pageLifeExpectancySeconds: 310 },
        ],
      ],
    );
  });

  it("shows the newest scan of each root with its worst files, most extents first", async () => {
    const deep = await queryDeepTelemetry(db, orgId, serverId, "1h", now);
    assert.deepEqual(deep.fragmentation, [
      {
        root: "/srv",
        scannedAt: at("09:00:00").toISOString(),
        files: 10,
        fragmentedFiles: 1,
        extents: 20,
        excessExtents: 10,
        unsupportedFiles: 0,
        scanDurationMs: 150,
        worstFiles: [
          { path: "/srv/b.db", extents: 12, sizeBytes: 8192 },
          { path: "/srv/a.db", extents: 7, sizeBytes: 4096 },
        ],
      },
    ]);
  });

  it("lists the newest page-cache top files, most accesses first, with their hit ratios", async () => {
    const deep = await queryDeepTelemetry(db, orgId, serverId, "7d", now);
    assert.deepEqual(deep.cacheTopFiles, {
      seenAt: at("09:59:50").toISOString(),
      intervalSeconds: 10,
      files: [
        { path: "/var/lib/postgresql/16/main/base/5/16384", accesses: 4000, misses: 1000, hitRatioPercent: 75 },
        { path: "/var/log/app.log", accesses: 4000, misses: 4000, hitRatioPercent: 0 },
        { path: "inode:2049:131077", accesses: 200, misses: 0, hitRatioPercent: 100 },
      ],
    });
  });

  it("never shows another organisation's top files for the same server id", async () => {
    const { orgId: other } = await createOrganisation(db.prisma, "Intruder");
    await db.pool.query(`INSERT INTO page_cache_top_files VALUES ($1, $2, '/etc/shadow', 9999, 1, 10, $3)`, [
      other,
      serverId,
      at("09:59:59"),
    ]);
    const deep = await queryDeepTelemetry(db, orgId, serverId, "1h", now);
    assert.deepEqual(
      deep.cacheTopFiles.files.map((f) => f.path),
      ["/var/lib/postgresql/16/main/base/5/16384", "/var/log/app.log", "inode:2049:131077"],
    );
    assert.equal(deep.cacheTopFiles.seenAt, at("09:59:50").toISOString());
  });

  it("lists every capability, the missing ones with what to do", async () => {
    const { capabilities } = await queryDeepTelemetry(db, orgId, serverId, "1h", now);
    assert.equal(capabilities.reportedAt, at("09:59:50").toISOString());
    // Every capability of the catalogue, in its order; only the two reported ones are available.
    assert.deepEqual(
      capabilities.items.map((c) => [c.name, c.available]),
      [
        ["ebpf.block_latency", true],
        ["ebpf.block_split", true],
        ["ebpf.page_cache", false],
        ["ebpf.mrc", false],
        ["fiemap.fragmentation", false],
        ["postgresql.statistics", false],
        ["psi.pressure", false],
        ["accel.read_cache", false],
        ["accel.read_cache.residency", false],
        ["accel.read_cache.holdout", false],
        ["accel.write_optimization", false],
        ["accel.write_optimization.preallocation", false],
        ["accel.write_optimization.defragmentation", false],
        ["accel.write_optimization.first_write", false],
        ["accel.write_optimization.extent_size_hint", false],
      ],
    );
    assert.match(capabilities.items[2]!.whenMissing, /root.*6\.10/);
    assert.equal(capabilities.items[0]!.whenMissing, "");
  });

  it("answers 404 for another organisation's server and reads none of its rows", async () => {
    const { orgId: other } = await createOrganisation(db.prisma, "Other");
    await assert.rejects(queryDeepTelemetry(db, other, serverId, "1h", now), (error: { status?: number }) => error.status === 404);
  });

  it("returns empty panels and unknown capabilities for a server that never reported", async () => {
    const { id: fresh } = await createServer(db.prisma, orgId, "new01");
    const deep = await queryDeepTelemetry(db, orgId, fresh, "7d", now);
    assert.deepEqual(
      [deep.latency, deep.splitIo, deep.fragmentation, deep.databases, deep.sqlServers, deep.cacheHit.time],
      [[], [], [], [], [], []],
    );
    assert.deepEqual(deep.cacheTopFiles, { seenAt: null, intervalSeconds: null, files: [] });
    assert.equal(deep.capabilities.reportedAt, null);
  });
});
