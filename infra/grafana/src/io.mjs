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
    timeseries("IOPS", "iops", perDevice("('read', read_ops / nullif(interval_seconds, 0)), ('write', write_ops / nullif(interval_seconds, 0))")),
    timeseries("Throughput", "Bps", perDevice("('read', read_bytes / nullif(interval_seconds, 0)), ('write', write_bytes / nullif(interval_seconds, 0))")),
    timeseries("Average latency (I/O-weighted)", "ms",
      perDevice("('read', read_time_ms::float8 / nullif(read_ops, 0)), ('write', write_time_ms::float8 / nullif(write_ops, 0))")),
    timeseries("Queue depth and utilisation", "short",
      perDevice("('queue depth', weighted_io_time_ms / (1000 * nullif(interval_seconds, 0))), ('utilisation %', 100 * io_time_ms / (1000 * nullif(interval_seconds, 0)))")),
    timeseries("Memory", "bytes", `SELECT $__timeGroupAlias(bucket, '1m'), available_bytes AS "available", cached_bytes AS "page cache", dirty_bytes AS "dirty"
FROM memory_1m
WHERE $__timeFilter(bucket) AND server_id = \${server:sqlstring}
ORDER BY 1`),
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

const latencyOverRange = `WITH merged AS (
  SELECT operation, ${mergedCounts} AS counts, sum(operations) AS total, sum(sum_seconds) AS sum_seconds
  FROM disk_latency_1m
  WHERE $__timeFilter(bucket) AND server_id = \${server:sqlstring} AND device = \${device:sqlstring}
  GROUP BY operation
)
SELECT operation, total AS "I/Os", 1000 * sum_seconds / total AS "mean ms",
  ${quantiles.map(([l, q]) => `${percentileEdgeMs("counts", "total", q)} AS "${l} ≤ ms"`).join(",\n  ")}
FROM merged WHERE total > 0 ORDER BY operation`;

const splitIo = `SELECT $__timeGroupAlias(s.bucket, '1m'), s.split_ops / nullif(s.interval_seconds, 0) AS "split I/Os per second",
  100.0 * s.split_ops / nullif(d.read_ops + d.write_ops, 0) AS "split % of completed I/Os"
FROM disk_split_io_1m s
LEFT JOIN disk_io_1m d ON d.server_id = s.server_id AND d.device = s.device AND d.bucket = s.bucket
WHERE $__timeFilter(s.bucket) AND s.server_id = \${server:sqlstring} AND s.device = \${device:sqlstring}
ORDER BY 1`;

export const latency = dashboard({
  uid: "spindle-latency",
  title: "Spindle: latency percentiles and split I/O",
  description: "eBPF block-layer histograms (log2 buckets) merged by adding counts; a percentile is the upper edge of its bucket. No rows: not measured (no eBPF on that server).",
  variables: [serverVariable, deviceVariable],
  panels: [
    timeseries("Latency percentiles per minute (bucket upper edge)", "ms", latencyPerMinute,
      "Each minute's buckets merged, then the nearest-rank bucket of each percentile."),
    table("Latency over the time range (merged buckets)", "ms", latencyOverRange,
      "Every minute of the range merged into one histogram per operation; the mean is exact (sum of latencies / I/Os)."),
    timeseries("Split I/O", "short", splitIo,
      "Bios split by the block layer (block:block_split), and their share of the I/Os /proc/diskstats completed."),
  ],
});
