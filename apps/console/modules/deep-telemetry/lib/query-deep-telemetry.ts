import { inOrgSql, type Db } from "@/lib/db";
import { readServerSql } from "@/modules/fleet/lib/get-server";
import { asChartWindow, type ChartWindow } from "@/modules/metrics/lib/chart-window";
import type { MetricsRange } from "@/modules/metrics/types/metrics";
import type { CacheTopFiles, DeepTelemetry, FragmentationRoot } from "../types/deep-telemetry";
import {
  buildCacheHitSeries,
  buildDatabaseSeries,
  buildLatencySeries,
  buildSplitIoSeries,
  buildSqlServerSeries,
} from "./build-deep-series";
import { describeCapabilities } from "./capabilities";
import { describeUntimed, latencyBasis } from "./latency-basis";
import {
  cacheTopFilesSql,
  capabilitiesSql,
  databaseSql,
  latencySql,
  latestScansSql,
  pageCacheSql,
  splitSql,
  sqlServerSql,
  untimedSql,
  worstFilesSql,
  type CacheTopFileRow,
  type CapabilitiesRow,
  type DatabaseRow,
  type FragmentationScanRow,
  type LatencyRow,
  type PageCacheRow,
  type SplitRow,
  type SqlServerRow,
  type UntimedRow,
  type WorstFileRow,
} from "./deep-sql";

/**
 * The deep-telemetry panels of one server over a window (a preset or a custom one). The server is looked up in the caller's
 * organisation first (another tenant's server is a 404 and its telemetry is never read); every
 * SQL statement filters on org_id as well, in one transaction under row-level security (inOrgSql).
 */
export async function queryDeepTelemetry(
  db: Db,
  orgId: string,
  serverId: string,
  window: MetricsRange | ChartWindow,
  now = new Date(),
): Promise<DeepTelemetry> {
  const { range, from, to, source } = asChartWindow(window, now);
  const { bucketSeconds } = source;
  const inRange = [orgId, serverId, from, to];
  const latest = [orgId, serverId];
  const [latency, untimed, split, pageCache, databases, sqlServers, scans, worstFiles, topFiles, capabilities] = await inOrgSql(
    db,
    orgId,
    async (sql) => {
      await readServerSql(sql, orgId, serverId, now);
      // One connection answers in order; Promise.all only queues them on it.
      return Promise.all([
        sql.query<LatencyRow>(latencySql(source), inRange),
        sql.query<UntimedRow>(untimedSql(source), inRange),
        sql.query<SplitRow>(splitSql(source), inRange),
        sql.query<PageCacheRow>(pageCacheSql(source), inRange),
        sql.query<DatabaseRow>(databaseSql(source), inRange),
        sql.query<SqlServerRow>(sqlServerSql(source), inRange),
        sql.query<FragmentationScanRow>(latestScansSql, latest),
        sql.query<WorstFileRow>(worstFilesSql, latest),
        sql.query<CacheTopFileRow>(cacheTopFilesSql, latest),
        sql.query<CapabilitiesRow>(capabilitiesSql, latest),
      ]);
    },
  );
  const agent = capabilities.rows[0];
  const basis = latencyBasis(latency.rows, untimed.rows);
  return {
    range,
    bucketSeconds,
    from: from.toISOString(),
    to: to.toISOString(),
    capabilities: describeCapabilities(agent?.telemetry_capabilities ?? [], agent?.telemetry_capabilities_at ?? null),
    latency: buildLatencySeries(latency.rows, bucketSeconds, basis),
    latencyBasis: {
      timedOperations: basis.reduce((sum, row) => sum + row.timed_operations, 0),
      untimed: describeUntimed(basis),
    },
    splitIo: buildSplitIoSeries(split.rows, bucketSeconds),
    cacheHit: buildCacheHitSeries(pageCache.rows, bucketSeconds),
    cacheTopFiles: toCacheTopFiles(topFiles.rows),
    fragmentation: scans.rows.map(
      (scan): FragmentationRoot => ({
        root: scan.root,
        scannedAt: scan.scanned_at.toISOString(),
        files: scan.files,
        fragmentedFiles: scan.fragmented_files,
        extents: scan.extents,
        excessExtents: scan.excess_extents,
        unsupportedFiles: scan.unsupported_files,
        scanDurationMs: scan.scan_duration_ms,
        worstFiles: worstFiles.rows
          .filter((file) => file.root === scan.root)
          .map((file) => ({ path: file.path, extents: file.extents, sizeBytes: file.size_bytes })),
      }),
    ),
    databases: buildDatabaseSeries(databases.rows, bucketSeconds),
    sqlServers: buildSqlServerSeries(sqlServers.rows, bucketSeconds),
  };
}

/** The stored list as the panel shows it; every row of a server shares one interval. */
function toCacheTopFiles(rows: CacheTopFileRow[]): CacheTopFiles {
  const first = rows[0];
  return {
    seenAt: first ? first.seen_at.toISOString() : null,
    intervalSeconds: first ? first.interval_seconds : null,
    files: rows.map((row) => ({
      path: row.path,
      accesses: row.accesses,
      misses: row.misses,
      hitRatioPercent: (1 - row.misses / row.accesses) * 100,
    })),
  };
}
