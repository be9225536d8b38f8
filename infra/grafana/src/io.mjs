// Block I/O: throughput and queues per device (disk_io), latency percentiles from merged
// histogram buckets (disk_latency) and the I/Os the block layer split (disk_split_io).
import { dashboard, deviceVariable, serverVariable, table, timeseries } from "./panels.mjs";
import { mergedCounts, percentileEdgeMs, quantiles } from "./latency-sql.mjs";

const perDevice = (values) => `SELECT $__timeGroupAlias(bucket, '1m'), device || ' ' || m.metric AS metric, m.value
FROM disk_io_1m
CROSS JOIN LATERAL (VALUES ${values}) AS m(metric, value)
WHERE $__timeFilter(bucket) AND server_id = \${server:sqlstring}
ORDER BY 1`;

export const serverIo = dashboard({
  uid: "spindle-server-io",
  title: "Spindle: server storage I/O",
  description: "Per device, from /proc/diskstats deltas in the 1-minute aggregates.",
  variables: [serverVariable],
  panels: [
    timeseries(
      "IOPS",
      "iops",
      perDevice("('read', read_ops / nullif(interval_seconds, 0)), ('write', write_ops / nullif(interval_seconds, 0))"),
    ),
    timeseries(
      "Throughput",
      "Bps",
      perDevice("('read', read_bytes / nullif(interval_seconds, 0)), ('write', write_bytes / nullif(interval_seconds, 0))"),
    ),
    timeseries(
      "Average latency (I/O-weighted)",
      "ms",
      perDevice("('read', read_time_ms::float8 / nullif(read_ops, 0)), ('write', write_time_ms::float8 / nullif(write_ops, 0))"),
    ),
    timeseries(
      "Queue depth and utilisation",
      "short",
      perDevice(
        "('queue depth', weighted_io_time_ms / (1000 * nullif(interval_seconds, 0))), ('utilisation %', 100 * io_time_ms / (1000 * nullif(interval_seconds, 0)))",
      ),
    ),
    timeseries(
      "Memory",
      "bytes",
      `SELECT $__timeGroupAlias(bucket, '1m'), available_bytes AS "available", cached_bytes AS "page cache", dirty_bytes AS "dirty"
FROM memory_1m
WHERE $__timeFilter(bucket) AND server_id = \${server:sqlstring}
ORDER BY 1`,
    ),
  ],
});

const latencyPerMinute = `WITH merged AS (
  SELECT bucket, operation, ${mergedCounts} AS counts, sum(operations) AS total
  FROM disk_latency_1m
  WHERE $__timeFilter(bucket) AND server_id = \${server:sqlstring} AND device = \${device:sqlstring}
  GROUP BY bucket, operation
)
SELECT $__timeGroupAlias(bucket, '1m'), operation || ' ' || q.label AS metric, ${percentileEdgeMs("counts", "total", "q.quantile")} AS value
FROM merged CROSS JOIN (VALUES ${quantiles.map(([l, q]) => `('${l}', ${q})`).join(", ")}) AS q(label, quantile)
WHERE total > 0
ORDER BY 1`;

// Untimed I/Os (disk_io_untimed) are matched to the histograms minute by minute, so their share
// counts only minutes that reported both; a minute without a count is not measured, never 0.
const latencyOverRange = `WITH merged AS (
  SELECT operation, ${mergedCounts} AS counts, sum(operations) AS total, sum(sum_seconds) AS sum_seconds
  FROM disk_latency_1m
  WHERE $__timeFilter(bucket) AND server_id = \${server:sqlstring} AND device = \${device:sqlstring}
  GROUP BY operation
), untimed AS (
  SELECT u.operation, sum(u.untimed_ops) AS untimed, sum(l.operations) AS timed_alongside
  FROM disk_io_untimed_1m u
  LEFT JOIN disk_latency_1m l ON l.server_id = u.server_id AND l.device = u.device AND l.operation = u.operation AND l.bucket = u.bucket
  WHERE $__timeFilter(u.bucket) AND u.server_id = \${server:sqlstring} AND u.device = \${device:sqlstring}
  GROUP BY u.operation
)
SELECT merged.operation, total AS "timed I/Os", untimed.untimed AS "untimed I/Os",
  100.0 * untimed.untimed / nullif(untimed.untimed + coalesce(untimed.timed_alongside, 0), 0) AS "untimed % of completions",
  1000 * sum_seconds / total AS "mean ms",
  ${quantiles.map(([l, q]) => `${percentileEdgeMs("counts", "total", q)} AS "${l} ≤ ms"`).join(",\n  ")}
FROM merged LEFT JOIN untimed ON untimed.operation = merged.operation
WHERE total > 0 ORDER BY merged.operation`;

const untimedPerMinute = `SELECT $__timeGroupAlias(bucket, '1m'), operation AS metric, untimed_ops / nullif(interval_seconds, 0) AS value
FROM disk_io_untimed_1m
WHERE $__timeFilter(bucket) AND server_id = \${server:sqlstring} AND device = \${device:sqlstring}
ORDER BY 1`;

const splitIo = `SELECT $__timeGroupAlias(s.bucket, '1m'), s.split_ops / nullif(s.interval_seconds, 0) AS "split I/Os per second",
  100.0 * s.split_ops / nullif(d.read_ops + d.write_ops, 0) AS "split % of completed I/Os"
FROM disk_split_io_1m s
LEFT JOIN disk_io_1m d ON d.server_id = s.server_id AND d.device = s.device AND d.bucket = s.bucket
WHERE $__timeFilter(s.bucket) AND s.server_id = \${server:sqlstring} AND s.device = \${device:sqlstring}
ORDER BY 1`;

export const latency = dashboard({
  uid: "spindle-latency",
  title: "Spindle: latency percentiles and split I/O",
  description:
    "eBPF block-layer histograms (log2 buckets) merged by adding counts; a percentile is the upper edge of its bucket. No rows: not measured (no eBPF on that server).",
  variables: [serverVariable, deviceVariable],
  panels: [
    timeseries(
      "Latency percentiles per minute (bucket upper edge)",
      "ms",
      latencyPerMinute,
      "Each minute's buckets merged, then the nearest-rank bucket of each percentile.",
    ),
    table(
      "Latency over the time range (merged buckets)",
      "ms",
      latencyOverRange,
      "Every minute of the range merged into one histogram per operation; the mean is exact (sum of latencies / I/Os). Untimed I/Os: completions the disk counted that no histogram holds (spindle.disk.io.untimed), which the percentiles leave out; empty where the agent did not count them (not measured).",
    ),
    timeseries(
      "Untimed I/Os per second",
      "iops",
      untimedPerMinute,
      "Completions the disk's own counters saw that the eBPF histograms did not (spindle.disk.io.untimed). No line: not measured (an agent from before the count, flushes, a disk without request statistics).",
    ),
    timeseries(
      "Split I/O",
      "short",
      splitIo,
      "Bios split by the block layer (block:block_split), and their share of the I/Os /proc/diskstats completed.",
    ),
  ],
});
