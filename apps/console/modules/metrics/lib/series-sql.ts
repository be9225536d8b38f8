// SQL for the chart series. Table names come from rangeSources (a closed set), never from input.
// Rows are grouped once more by (time, device) and summed: exact for counters whatever the source
// (raw rows, a continuous aggregate, or a worker-maintained rollup), and it keeps rates and
// I/O-weighted latency computed from sums only. The grouping streams off the index in (time,
// device) order without a sort.
//
// The database answers in columns, one JSON text per device (and one for memory): a 24 h chart is
// 5,756 buckets, and as one row object each node-postgres spent about as much CPU turning them
// into objects as the database spent finding them (docs/benchmarks.md, "Console at fleet scale").
// Arrays in JSON cost one native JSON.parse. Values keep their SQL types into JSON: a bigint
// counter's sum is numeric, written as its exact decimal, which JSON.parse rounds to the same
// double as a cast to float8 would; a sum that measured nothing is NULL, a JSON null.
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
 * One device's bucket sums in time order, column by column. A counter is null where the agent
 * did not measure it (sum() of NULLs): never drawn as 0.
 */
export type DiskSumColumns = { t: number[]; interval_seconds: number[] } &
  Record<Exclude<(typeof counters)[number], "interval_seconds">, (number | null)[]>;

/** A row of diskSeriesSql: one per device, its columns as JSON text (JSON.parse gives DiskSumColumns). */
export type DiskSeriesRow = { device: string; series: string };

/** json_build_object('t', json_agg(t ORDER BY t), …) over the given columns. */
function columnsAsJson(columns: readonly string[]): string {
  return `json_build_object(${columns.map((column) => `'${column}', json_agg(${column} ORDER BY t)`).join(", ")})`;
}

export function diskSeriesSql(source: RangeSource): string {
  const time = source.bucketSeconds === null ? "time" : "bucket";
  const sums = counters.map((column) => `sum(${column}) AS ${column}`).join(", ");
  // t is a float8: extract() gives numeric, with six zero decimals to print and parse for nothing.
  return `SELECT device, ${columnsAsJson(["t", ...counters])}::text AS series
FROM (
  SELECT extract(epoch FROM ${time})::float8 AS t, device, ${sums}
  FROM ${source.diskTable}
  WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
  GROUP BY ${time}, device
) AS buckets
GROUP BY device`;
}

const gauges = ["total_bytes", "available_bytes", "cached_bytes", "dirty_bytes"] as const;

/** The memory gauges in time order, column by column; null where not measured. */
export type MemoryColumns = { t: number[] } & Record<(typeof gauges)[number], (number | null)[]>;

/** The one row of memorySeriesSql: its columns as JSON text, or null when there are no samples. */
export type MemorySeriesRow = { series: string | null };

/**
 * Gauges: raw rows as they are; aggregate buckets as sample-weighted averages over the buckets
 * that measured the gauge. Not measured anywhere stays null (a gap), never 0.
 */
export function memorySeriesSql(source: RangeSource): string {
  const raw = source.bucketSeconds === null;
  const time = raw ? "time" : "bucket";
  const weight = raw ? "1" : "samples";
  const averages = gauges.map((column) => `(sum(${column}::float8 * ${weight}) / sum(${weight}) FILTER (WHERE ${column} IS NOT NULL))::float8 AS ${column}`).join(",\n    ");
  return `SELECT CASE WHEN count(*) > 0 THEN ${columnsAsJson(["t", ...gauges])}::text END AS series
FROM (
  SELECT extract(epoch FROM ${time})::float8 AS t,
    ${averages}
  FROM ${source.memoryTable}
  WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
  GROUP BY ${time}
) AS buckets`;
}
