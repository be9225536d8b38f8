// SQL for the chart series. Table names come from rangeSources (a closed set), never from input.
// Raw rows have no unique key, so they are grouped by (time, device) and summed: exact for
// counters, and it keeps rates and I/O-weighted latency computed from sums only. An aggregate
// source (the worker's rollup tables, or TimescaleDB's continuous aggregates with their real-time
// part) holds one row per (bucket, device) by construction (its primary key; the view's GROUP
// BY), so its rows are read as they are: grouping them again summed every bigint into a numeric
// and cost the 24 h chart a third of its database time for nothing (docs/benchmarks.md).
//
// The database answers with one JSON text per device (and one for memory): its buckets in time
// order, each an array of its values. A 24 h chart is 5,756 buckets, and as one row object each
// node-postgres spent more CPU turning them into objects than the database spent finding them,
// where one native JSON.parse costs a few milliseconds (docs/benchmarks.md, "Console at fleet
// scale"). One ordered aggregate per device: an aggregate per column would sort the device's
// buckets once per column. A value that measured nothing is NULL, a JSON null.
import type { RangeSource } from "./range-source";

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
] as const;

/**
 * One bucket of one device: its time (unix seconds), then the sums in the order of `counters`. A
 * counter is null where the agent did not measure it (sum() of NULLs): never drawn as 0.
 */
export type DiskBucketSums = [
  t: number,
  intervalSeconds: number,
  readOps: number | null,
  writeOps: number | null,
  readBytes: number | null,
  writeBytes: number | null,
  readTimeMs: number | null,
  writeTimeMs: number | null,
  ioTimeMs: number | null,
  weightedIoTimeMs: number | null,
];

/** A row of diskSeriesSql: one per device, its buckets in time order as JSON text (DiskBucketSums[]). */
export type DiskSeriesRow = { device: string; series: string };

/** json_agg of one JSON array per bucket, in time order. */
function bucketsAsJson(columns: readonly string[], orderBy: string): string {
  return `json_agg(json_build_array(${columns.join(", ")}) ORDER BY ${orderBy})::text`;
}

export function diskSeriesSql(source: RangeSource): string {
  if (source.bucketSeconds !== null) {
    return `SELECT device, ${bucketsAsJson(["extract(epoch FROM bucket)::float8", ...counters], "bucket")} AS series
FROM ${source.diskTable}
WHERE org_id = $1 AND server_id = $2 AND bucket > $3 AND bucket <= $4
GROUP BY device`;
  }
  // A bigint counter's sum is numeric, written as its exact decimal, which JSON.parse rounds to
  // the same double as a cast to float8 would, without the cast (numeric to text to double inside
  // the database). t is a float8: extract() gives numeric, six zero decimals for nothing.
  const sums = counters.map((column) => `sum(${column}) AS ${column}`).join(", ");
  return `SELECT device, ${bucketsAsJson(["t", ...counters], "t")} AS series
FROM (
  SELECT extract(epoch FROM time)::float8 AS t, device, ${sums}
  FROM ${source.diskTable}
  WHERE org_id = $1 AND server_id = $2 AND time > $3 AND time <= $4
  GROUP BY time, device
) AS buckets
GROUP BY device`;
}

const gauges = ["total_bytes", "available_bytes", "cached_bytes", "dirty_bytes"] as const;

/** One memory bucket: its time, then the gauges in the order of `gauges`; null where not measured. */
export type MemoryBucket = [
  t: number,
  totalBytes: number | null,
  availableBytes: number | null,
  cachedBytes: number | null,
  dirtyBytes: number | null,
];

/** The one row of memorySeriesSql: its buckets in time order as JSON text (MemoryBucket[]), or null when there are none. */
export type MemorySeriesRow = { series: string | null };

/**
 * Gauges: raw rows averaged per sample time (one row each in practice); an aggregate's row holds
 * its bucket's sample-weighted average already. Not measured stays null (a gap), never 0.
 */
export function memorySeriesSql(source: RangeSource): string {
  if (source.bucketSeconds !== null) {
    return `SELECT ${bucketsAsJson(["extract(epoch FROM bucket)::float8", ...gauges.map((column) => `${column}::float8`)], "bucket")} AS series
FROM ${source.memoryTable}
WHERE org_id = $1 AND server_id = $2 AND bucket > $3 AND bucket <= $4`;
  }
  const averages = gauges.map((column) => `avg(${column}::float8) AS ${column}`).join(",\n    ");
  return `SELECT ${bucketsAsJson(["t", ...gauges], "t")} AS series
FROM (
  SELECT extract(epoch FROM time)::float8 AS t,
    ${averages}
  FROM ${source.memoryTable}
  WHERE org_id = $1 AND server_id = $2 AND time > $3 AND time <= $4
  GROUP BY time
) AS buckets`;
}
