// SQL for the chart series. Table names come from rangeSources (a closed set), never from input.
// Rows are grouped once more by (time, device) and summed: exact for counters whatever the source
// (raw rows, a continuous aggregate, or a worker-maintained rollup), and it keeps rates and
// I/O-weighted latency computed from sums only. Rows come in (time, device) order, the order of
// the aggregates' keys, so the grouping streams off the index without a sort (buildDeviceSeries
// splits them by device).
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

/** A counter is null where the agent did not measure it (sum() of NULLs): never drawn as 0. */
export type DiskBucketRow = { t: number; device: string; interval_seconds: number } &
  Record<Exclude<(typeof counters)[number], "interval_seconds">, number | null>;

export function diskSeriesSql(source: RangeSource): string {
  const time = source.bucketSeconds === null ? "time" : "bucket";
  const sums = counters.map((column) => `sum(${column})::float8 AS ${column}`).join(",\n  ");
  return `SELECT extract(epoch FROM ${time})::float8 AS t, device,
  ${sums}
FROM ${source.diskTable}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}, device
ORDER BY ${time}, device`;
}

const gauges = ["total_bytes", "available_bytes", "cached_bytes", "dirty_bytes"] as const;

export type MemoryBucketRow = { t: number } & Record<(typeof gauges)[number], number | null>;

/**
 * Gauges: raw rows as they are; aggregate buckets as sample-weighted averages over the buckets
 * that measured the gauge. Not measured anywhere stays null (a gap), never 0.
 */
export function memorySeriesSql(source: RangeSource): string {
  const raw = source.bucketSeconds === null;
  const time = raw ? "time" : "bucket";
  const weight = raw ? "1" : "samples";
  const averages = gauges.map((column) => `(sum(${column}::float8 * ${weight}) / sum(${weight}) FILTER (WHERE ${column} IS NOT NULL))::float8 AS ${column}`).join(",\n  ");
  return `SELECT extract(epoch FROM ${time})::float8 AS t,
  ${averages}
FROM ${source.memoryTable}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}
ORDER BY ${time}`;
}
