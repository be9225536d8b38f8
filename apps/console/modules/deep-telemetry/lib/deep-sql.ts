// SQL for the deep-telemetry panels. Table names come from a closed set (deepTable), never from
// input. Rows are grouped once more by time (and key) and summed, so raw rows, continuous
// aggregates and worker rollups all answer the same way; percentiles and ratios are computed
// afterwards from these sums (build-deep-series.ts).
import { rangeSources, type RangeSource } from "@/modules/metrics/lib/range-source";
import type { MetricsRange } from "@/modules/metrics/types/metrics";

/** A preset's source, or the source chart-window.ts chose for a custom window. */
type Window = MetricsRange | RangeSource;

export type DeepFamily = "disk_latency" | "disk_io_untimed" | "disk_split_io" | "page_cache" | "pg_database_stats" | "sqlserver_stats";

/** The table that answers a window: raw rows, 1-minute or 1-hour buckets, as the window's source says. */
export function deepTable(family: DeepFamily, window: Window): { table: string; time: "time" | "bucket" } {
  const bucketSeconds = (typeof window === "string" ? rangeSources[window] : window).bucketSeconds;
  if (bucketSeconds === null) return { table: family, time: "time" };
  return { table: `${family}_${bucketSeconds === 60 ? "1m" : "1h"}`, time: "bucket" };
}

const bucketColumns = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);

/** How many agent intervals a point holds: one per raw row, the aggregates' own count per bucket. */
function samplesOf(time: "time" | "bucket"): string {
  return time === "time" ? "count(*)::float8" : "sum(samples)::float8";
}

/** samples: the agent intervals behind the point, which the untimed counts are matched against. */
export type LatencyRow = {
  t: number;
  device: string;
  operation: string;
  operations: number;
  sum_seconds: number;
  buckets: number[];
  samples: number;
};

export function latencySql(range: Window): string {
  const { table, time } = deepTable("disk_latency", range);
  return `SELECT extract(epoch FROM ${time})::float8 AS t, device, operation,
  sum(operations)::float8 AS operations, sum(sum_seconds)::float8 AS sum_seconds,
  ARRAY[${bucketColumns.map((c) => `sum(${c})::float8`).join(", ")}] AS buckets, ${samplesOf(time)} AS samples
FROM ${table}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}, device, operation
ORDER BY device, operation, ${time}`;
}

/** The untimed I/Os (spindle.disk.io.untimed) per point, matched to latencySql's points by latencyBasis. */
export type UntimedRow = { t: number; device: string; operation: string; untimed_ops: number; samples: number };

export function untimedSql(range: Window): string {
  const { table, time } = deepTable("disk_io_untimed", range);
  return `SELECT extract(epoch FROM ${time})::float8 AS t, device, operation, sum(untimed_ops)::float8 AS untimed_ops, ${samplesOf(time)} AS samples
FROM ${table}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}, device, operation`;
}

export type SplitRow = { t: number; device: string; interval_seconds: number; split_ops: number };

export function splitSql(range: Window): string {
  const { table, time } = deepTable("disk_split_io", range);
  return `SELECT extract(epoch FROM ${time})::float8 AS t, device, sum(interval_seconds)::float8 AS interval_seconds, sum(split_ops)::float8 AS split_ops
FROM ${table}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}, device
ORDER BY device, ${time}`;
}

export type PageCacheRow = { t: number; accesses: number; misses: number };

export function pageCacheSql(range: Window): string {
  const { table, time } = deepTable("page_cache", range);
  return `SELECT extract(epoch FROM ${time})::float8 AS t, sum(accesses)::float8 AS accesses, sum(misses)::float8 AS misses
FROM ${table}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}
ORDER BY ${time}`;
}

export type DatabaseRow = {
  t: number;
  database: string;
  interval_seconds: number;
  commits: number;
  rollbacks: number;
  blocks_hit: number;
  blocks_read: number;
};

export function databaseSql(range: Window): string {
  const { table, time } = deepTable("pg_database_stats", range);
  return `SELECT extract(epoch FROM ${time})::float8 AS t, database, sum(interval_seconds)::float8 AS interval_seconds,
  sum(commits)::float8 AS commits, sum(rollbacks)::float8 AS rollbacks, sum(blocks_hit)::float8 AS blocks_hit, sum(blocks_read)::float8 AS blocks_read
FROM ${table}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}, database
ORDER BY database, ${time}`;
}

/**
 * One SQL Server instance's sums per point. The rate divides by the seconds that measured
 * batches and the hit ratio by the samples that had one, so an instance's first interval (no
 * batch count yet) and one that has read no page count as not measured, not as 0.
 */
export type SqlServerRow = {
  t: number;
  instance: string;
  batch_requests: number | null;
  batch_seconds: number | null;
  hit_ratio_sum: number | null;
  hit_ratio_samples: number;
  page_life_sum: number;
  samples: number;
};

export function sqlServerSql(range: Window): string {
  const { table, time } = deepTable("sqlserver_stats", range);
  const sums =
    time === "time"
      ? `sum(batch_requests)::float8 AS batch_requests, (sum(interval_seconds) FILTER (WHERE batch_requests IS NOT NULL))::float8 AS batch_seconds,
  sum(buffer_cache_hit_ratio)::float8 AS hit_ratio_sum, count(buffer_cache_hit_ratio)::float8 AS hit_ratio_samples,
  sum(page_life_expectancy_s)::float8 AS page_life_sum, count(*)::float8 AS samples`
      : `sum(batch_requests)::float8 AS batch_requests, sum(batch_seconds)::float8 AS batch_seconds,
  sum(hit_ratio_sum)::float8 AS hit_ratio_sum, sum(hit_ratio_samples)::float8 AS hit_ratio_samples,
  sum(page_life_expectancy_s)::float8 AS page_life_sum, sum(samples)::float8 AS samples`;
  return `SELECT extract(epoch FROM ${time})::float8 AS t, instance, ${sums}
FROM ${table}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}, instance
ORDER BY instance, ${time}`;
}

export type FragmentationScanRow = {
  root: string;
  scanned_at: Date;
  files: number;
  fragmented_files: number;
  extents: number;
  excess_extents: number;
  unsupported_files: number | null;
  scan_duration_ms: number | null;
};

/** The newest scan result of every root (not range-bound: a scan runs once an hour or less often). */
export const latestScansSql = `SELECT DISTINCT ON (root) root, time AS scanned_at, files::float8 AS files, fragmented_files::float8 AS fragmented_files,
  extents::float8 AS extents, excess_extents::float8 AS excess_extents, unsupported_files::float8 AS unsupported_files,
  scan_duration_ms::float8 AS scan_duration_ms
FROM fragmentation_scans
WHERE org_id = $1 AND server_id = $2
ORDER BY root, time DESC`;

export type WorstFileRow = { root: string; path: string; extents: number; size_bytes: number };

export const worstFilesSql = `SELECT root, path, extents::float8 AS extents, size_bytes::float8 AS size_bytes
FROM fragmentation_worst_files
WHERE org_id = $1 AND server_id = $2
ORDER BY root, extents DESC, path`;

export type CacheTopFileRow = { path: string; accesses: number; misses: number; interval_seconds: number; seen_at: Date };

/** The server's page-cache top files: the gateway keeps only the newest interval's list. */
export const cacheTopFilesSql = `SELECT path, accesses::float8 AS accesses, misses::float8 AS misses, interval_seconds, seen_at
FROM page_cache_top_files
WHERE org_id = $1 AND server_id = $2
ORDER BY accesses DESC, path`;

export type CapabilitiesRow = { telemetry_capabilities: string[]; telemetry_capabilities_at: Date | null };

export const capabilitiesSql = `SELECT telemetry_capabilities, telemetry_capabilities_at FROM agents WHERE org_id = $1 AND server_id = $2`;
