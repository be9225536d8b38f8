// Host-wide families: page cache and its top files, fragmentation scans and worst files,
// PostgreSQL and SQL Server database statistics, and pressure stall time.
import { dashboard, serverVariable, stat, table, timeseries } from "./panels.mjs";

const byServer = "server_id = ${server:sqlstring}";

export const pageCache = dashboard({
  uid: "spindle-page-cache",
  title: "Spindle: page cache",
  description:
    "eBPF page-cache accesses and misses (system-wide), and the files with the most accesses in the newest interval. No rows: not measured.",
  variables: [serverVariable],
  panels: [
    timeseries(
      "Page-cache hit ratio",
      "percentunit",
      `SELECT $__timeGroupAlias(bucket, '1m'), 1 - misses::float8 / nullif(accesses, 0) AS "hit ratio"
FROM page_cache_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
    timeseries(
      "Page-cache accesses and misses",
      "short",
      `SELECT $__timeGroupAlias(bucket, '1m'), accesses / nullif(interval_seconds, 0) AS "accesses per second", misses / nullif(interval_seconds, 0) AS "misses per second"
FROM page_cache_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
    stat(
      "Hit ratio over the time range",
      "percentunit",
      `SELECT 1 - sum(misses)::float8 / nullif(sum(accesses), 0) AS "hit ratio"
FROM page_cache_1m
WHERE $__timeFilter(bucket) AND ${byServer}
HAVING sum(accesses) > 0`,
      "Sum of misses over sum of accesses, never an average of ratios.",
    ),
    table(
      "Top files (newest interval)",
      "short",
      `SELECT path, accesses, misses, 1 - misses::float8 / accesses AS "hit ratio", seen_at AS "interval end"
FROM page_cache_top_files
WHERE ${byServer}
ORDER BY accesses DESC, path`,
    ),
  ],
});

export const fragmentation = dashboard({
  uid: "spindle-fragmentation",
  title: "Spindle: file fragmentation",
  description: "FIEMAP scans per root (a row per changed result) and each root's worst files. No rows: not measured.",
  variables: [serverVariable],
  panels: [
    timeseries(
      "Fragmented files per root",
      "percent",
      `SELECT time AS "time", root AS metric, 100.0 * fragmented_files / nullif(files, 0) AS value
FROM fragmentation_scans
WHERE $__timeFilter(time) AND ${byServer}
ORDER BY 1`,
    ),
    timeseries(
      "Excess extents per root",
      "short",
      `SELECT time AS "time", root AS metric, excess_extents AS value
FROM fragmentation_scans
WHERE $__timeFilter(time) AND ${byServer}
ORDER BY 1`,
    ),
    table(
      "Newest scan per root",
      "short",
      `SELECT DISTINCT ON (root) root, time AS "scanned", files, fragmented_files AS "fragmented files", extents,
  excess_extents AS "excess extents", unsupported_files AS "unsupported files", scan_duration_ms AS "scan ms"
FROM fragmentation_scans
WHERE ${byServer}
ORDER BY root, time DESC`,
    ),
    table(
      "Worst files",
      "short",
      `SELECT root, path, extents, size_bytes AS "size bytes", seen_at AS "seen"
FROM fragmentation_worst_files
WHERE ${byServer}
ORDER BY extents DESC, path`,
    ),
  ],
});

export const database = dashboard({
  uid: "spindle-database",
  title: "Spindle: database statistics",
  description:
    "PostgreSQL: pg_stat_database deltas per database; read time needs track_io_timing, without it the column is empty (not measured). SQL Server: each instance's performance counters; an interval that did not measure a value (the first after a start, no page read yet) is left out, never counted as 0.",
  variables: [serverVariable],
  panels: [
    timeseries(
      "Transactions per second",
      "short",
      `SELECT $__timeGroupAlias(bucket, '1m'), database || ' ' || m.metric AS metric, m.value
FROM pg_database_stats_1m
CROSS JOIN LATERAL (VALUES ('commits', commits / nullif(interval_seconds, 0)), ('rollbacks', rollbacks / nullif(interval_seconds, 0))) AS m(metric, value)
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
    timeseries(
      "Buffer hit ratio",
      "percentunit",
      `SELECT $__timeGroupAlias(bucket, '1m'), database AS metric, blocks_hit::float8 / nullif(blocks_hit + blocks_read, 0) AS value
FROM pg_database_stats_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
    timeseries(
      "Block read time per block read",
      "ms",
      `SELECT $__timeGroupAlias(bucket, '1m'), database AS metric, block_read_time_us / 1000.0 / nullif(blocks_read, 0) AS value
FROM pg_database_stats_1m
WHERE $__timeFilter(bucket) AND ${byServer} AND block_read_time_us IS NOT NULL
ORDER BY 1`,
    ),
    table(
      "Over the time range",
      "short",
      `SELECT database, sum(commits) / sum(interval_seconds) AS "TPS",
  sum(blocks_hit)::float8 / nullif(sum(blocks_hit) + sum(blocks_read), 0) AS "buffer hit ratio", sum(blocks_read) AS "blocks read"
FROM pg_database_stats_1m
WHERE $__timeFilter(bucket) AND ${byServer}
GROUP BY database ORDER BY database`,
    ),
    timeseries(
      "SQL Server batch requests per second",
      "short",
      `SELECT $__timeGroupAlias(bucket, '1m'), instance AS metric, batch_requests / nullif(batch_seconds, 0) AS value
FROM sqlserver_stats_1m
WHERE $__timeFilter(bucket) AND ${byServer} AND batch_requests IS NOT NULL
ORDER BY 1`,
    ),
    timeseries(
      "SQL Server buffer cache hit ratio",
      "percentunit",
      `SELECT $__timeGroupAlias(bucket, '1m'), instance AS metric, hit_ratio_sum / nullif(hit_ratio_samples, 0) AS value
FROM sqlserver_stats_1m
WHERE $__timeFilter(bucket) AND ${byServer} AND hit_ratio_samples > 0
ORDER BY 1`,
    ),
    timeseries(
      "SQL Server page life expectancy",
      "s",
      `SELECT $__timeGroupAlias(bucket, '1m'), instance AS metric, page_life_expectancy_s::float8 / nullif(samples, 0) AS value
FROM sqlserver_stats_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
  ],
});

export const pressure = dashboard({
  uid: "spindle-pressure",
  title: "Spindle: pressure stall",
  description: "/proc/pressure: share of the interval some (or all) tasks stalled. A missing line is not measured, never 0.",
  variables: [serverVariable],
  panels: [
    timeseries(
      "Memory pressure",
      "percentunit",
      `SELECT $__timeGroupAlias(bucket, '1m'), memory_some_us / (1e6 * nullif(interval_seconds, 0)) AS "some", memory_full_us / (1e6 * nullif(interval_seconds, 0)) AS "full"
FROM pressure_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
    timeseries(
      "I/O pressure",
      "percentunit",
      `SELECT $__timeGroupAlias(bucket, '1m'), io_some_us / (1e6 * nullif(interval_seconds, 0)) AS "some", io_full_us / (1e6 * nullif(interval_seconds, 0)) AS "full"
FROM pressure_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
  ],
});
