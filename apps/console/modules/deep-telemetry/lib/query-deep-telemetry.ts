import type { Pool, Prisma } from "@/lib/db";
import { getServer } from "@/modules/fleet/lib/get-server";
import { rangeSources } from "@/modules/metrics/lib/range-source";
import type { MetricsRange } from "@/modules/metrics/types/metrics";
import type { CacheTopFiles, DeepTelemetry, FragmentationRoot } from "../types/deep-telemetry";
import { buildCacheHitSeries, buildDatabaseSeries, buildLatencySeries, buildSplitIoSeries } from "./build-deep-series";
import { describeCapabilities } from "./capabilities";
import {
  cacheTopFilesSql,
  capabilitiesSql,
  databaseSql,
  latencySql,
  latestScansSql,
  pageCacheSql,
  splitSql,
  worstFilesSql,
  type CacheTopFileRow,
  type CapabilitiesRow,
  type DatabaseRow,
  type FragmentationScanRow,
  type LatencyRow,
  type PageCacheRow,
  type SplitRow,
  type WorstFileRow,
} from "./deep-sql";

/**
 * The deep-telemetry panels of one server over a range. The server is looked up in the caller's
 * organisation first (another tenant's server is a 404 and its telemetry is never read); every
 * SQL statement filters on org_id as well.
 */
export async function queryDeepTelemetry(
  db: { prisma: Prisma; pool: Pool },
  orgId: string,
  serverId: string,
  range: MetricsRange,
  now = new Date(),
): Promise<DeepTelemetry> {
  await getServer(db.prisma, orgId, serverId, now);
  const { seconds, bucketSeconds } = rangeSources[range];
  const from = new Date(now.getTime() - seconds * 1000);
  const inRange = [orgId, serverId, from, now];
  const latest = [orgId, serverId];
  const [latency, split, pageCache, databases, scans, worstFiles, topFiles, capabilities] = await Promise.all([
    db.pool.query<LatencyRow>(latencySql(range), inRange),
    db.pool.query<SplitRow>(splitSql(range), inRange),
    db.pool.query<PageCacheRow>(pageCacheSql(range), inRange),
    db.pool.query<DatabaseRow>(databaseSql(range), inRange),
    db.pool.query<FragmentationScanRow>(latestScansSql, latest),
    db.pool.query<WorstFileRow>(worstFilesSql, latest),
    db.pool.query<CacheTopFileRow>(cacheTopFilesSql, latest),
    db.pool.query<CapabilitiesRow>(capabilitiesSql, latest),
  ]);
  const agent = capabilities.rows[0];
  return {
    range,
    bucketSeconds,
    from: from.toISOString(),
    to: now.toISOString(),
    capabilities: describeCapabilities(agent?.telemetry_capabilities ?? [], agent?.telemetry_capabilities_at ?? null),
    latency: buildLatencySeries(latency.rows, bucketSeconds),
    splitIo: buildSplitIoSeries(split.rows, bucketSeconds),
    cacheHit: buildCacheHitSeries(pageCache.rows, bucketSeconds),
    cacheTopFiles: toCacheTopFiles(topFiles.rows),
    fragmentation: scans.rows.map((scan): FragmentationRoot => ({
      root: scan.root,
      scannedAt: scan.scanned_at.toISOString(),
      files: scan.files,
      fragmentedFiles: scan.fragmented_files,
      extents: scan.extents,
      excessExtents: scan.excess_extents,
      unsupportedFiles: scan.unsupported_files,
      scanDurationMs: scan.scan_duration_ms,
      worstFiles: worstFiles.rows.filter((file) => file.root === scan.root)
        .map((file) => ({ path: file.path, extents: file.extents, sizeBytes: file.size_bytes })),
    })),
    databases: buildDatabaseSeries(databases.rows, bucketSeconds),
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
