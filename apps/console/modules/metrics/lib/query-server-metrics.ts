import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { readServerSql } from "@/modules/fleet/lib/get-server";
import type { MetricsRange, ServerMetrics } from "../types/metrics";
import { asChartWindow, type ChartWindow } from "./chart-window";
import { buildDeviceSeries, buildMemorySeries } from "./columnar";
import {
  diskSeriesSql,
  memorySeriesSql,
  type DiskBucketSums,
  type DiskSeriesRow,
  type MemoryBucket,
  type MemorySeriesRow,
} from "./series-sql";

/**
 * The chart series of one server over a window (a preset or a custom one), from the table that
 * suits its span and age (chart-window.ts). The server
 * is looked up in the caller's organisation first, so another tenant's server is a 404 and its
 * telemetry is never read; the SQL filters on org_id as well, and the transaction runs under
 * row-level security (inOrgSql) as the wall behind both.
 */
export async function queryServerMetrics(
  db: Db,
  orgId: string,
  serverId: string,
  window: MetricsRange | ChartWindow,
  now = new Date(),
): Promise<ServerMetrics> {
  return inOrgSql(db, orgId, (sql) => readServerMetrics(sql, orgId, serverId, window, now));
}

/** queryServerMetrics inside a unit of work that is already open (also the TimescaleDB bench's entry). */
export async function readServerMetrics(
  sql: OrgSql,
  orgId: string,
  serverId: string,
  window: MetricsRange | ChartWindow,
  now = new Date(),
): Promise<ServerMetrics> {
  const { range, from, to, source } = asChartWindow(window, now);
  const params = [orgId, serverId, from, to];
  await readServerSql(sql, orgId, serverId, now);
  const disk = await sql.query<DiskSeriesRow>(diskSeriesSql(source), params);
  const memory = await sql.query<MemorySeriesRow>(memorySeriesSql(source), params);
  return {
    range,
    source: { disk: source.diskTable, memory: source.memoryTable },
    bucketSeconds: source.bucketSeconds,
    from: from.toISOString(),
    to: to.toISOString(),
    devices: buildDeviceSeries(
      disk.rows.map((row) => ({ device: row.device, buckets: JSON.parse(row.series) as DiskBucketSums[] })),
      source.bucketSeconds,
    ),
    memory: buildMemorySeries(memory.rows[0]?.series ? (JSON.parse(memory.rows[0].series) as MemoryBucket[]) : [], source.bucketSeconds),
  };
}
