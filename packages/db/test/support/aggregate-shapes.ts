// The aggregate shapes of docs/metrics.md ("Aggregates"), as PostgreSQL reports them. Both
// storage modes must produce exactly these columns, in this order, so the console's queries
// do not care which mode a database runs in.
const diskIoAggregate = [
  "bucket:timestamp with time zone",
  "org_id:text",
  "server_id:uuid",
  "device:text",
  "interval_seconds:double precision",
  "read_ops:bigint",
  "write_ops:bigint",
  "read_bytes:bigint",
  "write_bytes:bigint",
  "read_merged:bigint",
  "write_merged:bigint",
  "read_time_ms:bigint",
  "write_time_ms:bigint",
  "io_time_ms:bigint",
  "weighted_io_time_ms:bigint",
  "in_progress_max:integer",
  "samples:bigint",
];

const memoryAggregate = [
  "bucket:timestamp with time zone",
  "org_id:text",
  "server_id:uuid",
  "total_bytes:bigint",
  "available_bytes:bigint",
  "free_bytes:bigint",
  "cached_bytes:bigint",
  "buffers_bytes:bigint",
  "dirty_bytes:bigint",
  "swap_total_bytes:bigint",
  "swap_free_bytes:bigint",
  "available_min_bytes:bigint",
  "samples:bigint",
];

export const aggregateShapes: Record<string, string[]> = {
  disk_io_1m: diskIoAggregate,
  disk_io_1h: diskIoAggregate,
  memory_1m: memoryAggregate,
  memory_1h: memoryAggregate,
};

export const aggregateColumnsQuery = `
  SELECT table_name, column_name || ':' || data_type AS column
  FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name IN ('disk_io_1m', 'disk_io_1h', 'memory_1m', 'memory_1h')
  ORDER BY table_name, ordinal_position`;

export function groupColumns(rows: { table_name: string; column: string }[]): Record<string, string[]> {
  const shapes: Record<string, string[]> = {};
  for (const row of rows) (shapes[row.table_name] ??= []).push(row.column);
  return shapes;
}
