// The aggregate shapes of 20261121140000_deep_telemetry (docs/metrics.md, "Aggregates"), as
// PostgreSQL reports them. Both storage modes must produce exactly these columns, in this order.
const head = ["bucket:timestamp with time zone", "org_id:text", "server_id:uuid"];
const buckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}:bigint`);
const tail = ["samples:bigint"];

const shapes = {
  disk_latency: [
    ...head,
    "device:text",
    "operation:text",
    "interval_seconds:double precision",
    "operations:bigint",
    "sum_seconds:double precision",
    ...buckets,
    ...tail,
  ],
  disk_split_io: [...head, "device:text", "interval_seconds:double precision", "split_ops:bigint", ...tail],
  page_cache: [...head, "interval_seconds:double precision", "accesses:bigint", "misses:bigint", ...tail],
  pg_database_stats: [
    ...head,
    "database:text",
    "interval_seconds:double precision",
    "commits:bigint",
    "rollbacks:bigint",
    "blocks_hit:bigint",
    "blocks_read:bigint",
    "block_read_time_us:bigint",
    ...tail,
  ],
  pressure: [
    ...head,
    "interval_seconds:double precision",
    "memory_some_us:bigint",
    "memory_full_us:bigint",
    "io_some_us:bigint",
    "io_full_us:bigint",
    ...tail,
  ],
};

export const deepRawTables = Object.keys(shapes);

export const deepAggregateShapes: Record<string, string[]> = Object.fromEntries(
  Object.entries(shapes).flatMap(([table, columns]) => [
    [`${table}_1h`, columns],
    [`${table}_1m`, columns],
  ]),
);

export const deepAggregateColumnsQuery = `
  SELECT table_name, column_name || ':' || data_type AS column
  FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name IN (${Object.keys(deepAggregateShapes)
    .map((t) => `'${t}'`)
    .join(", ")})
  ORDER BY table_name, ordinal_position`;

/** One disk_latency row's bucket columns and values: `counts` fills bucket_00, bucket_01, … */
export function latencyBucketValues(counts: number[]): { columns: string; values: string } {
  const all = Array.from({ length: 28 }, (_, i) => counts[i] ?? 0);
  return {
    columns: all.map((_, i) => `bucket_${String(i).padStart(2, "0")}`).join(", "),
    values: all.join(", "),
  };
}
