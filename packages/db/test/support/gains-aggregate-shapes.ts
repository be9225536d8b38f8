// The aggregate shapes of 20261123100000_acceleration_gains (docs/metrics.md, "Acceleration
// features"), as PostgreSQL reports them. Both storage modes must produce exactly these columns,
// in this order, so the console's gains queries do not care which mode a database runs in.
const head = ["bucket:timestamp with time zone", "org_id:text", "server_id:uuid", "interval_seconds:double precision"];
const gauges = ["budget_bytes", "resident_bytes", "pinned_bytes", "managed_files"];

const shapes = {
  read_cache: [
    ...head,
    ...gauges.flatMap((g) => [`${g}_sum:bigint`, `${g}_samples:bigint`]),
    ...["hits_bytes", "misses_bytes", "prefetched_bytes", "dropped_behind_bytes", "backoffs"].map((c) => `${c}:bigint`),
    "memory_read_latency_weighted_seconds:double precision",
    "memory_read_latency_samples:bigint",
    "samples:bigint",
  ],
  write_opt: [
    ...head,
    ...[
      "preallocated_bytes",
      "fragments_prevented",
      "files_defragmented",
      "managed_grown_bytes",
      "managed_extents_added",
      "unmanaged_grown_bytes",
      "unmanaged_extents_added",
    ].map((c) => `${c}:bigint`),
    "samples:bigint",
  ],
};

export const gainsRawTables = Object.keys(shapes);

export const gainsAggregateShapes: Record<string, string[]> = Object.fromEntries(
  Object.entries(shapes).flatMap(([table, columns]) => [
    [`${table}_1h`, columns],
    [`${table}_1m`, columns],
  ]),
);

export const gainsAggregateColumnsQuery = `
  SELECT table_name, column_name || ':' || data_type AS column
  FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name IN (${Object.keys(gainsAggregateShapes)
    .map((t) => `'${t}'`)
    .join(", ")})
  ORDER BY table_name, ordinal_position`;
