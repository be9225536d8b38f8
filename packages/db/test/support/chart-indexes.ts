// The 24 h chart (apps/console series-sql.ts) reads one server's 1-minute buckets; migration
// 20261125130000 gives both storage modes an index that answers it without touching the heap.
import assert from "node:assert/strict";

/** Columns the chart reads from each 1-minute aggregate, the filter's first. */
export const chartColumns = {
  disk_io_1m: [
    "org_id",
    "server_id",
    "bucket",
    "device",
    "interval_seconds",
    "read_ops",
    "write_ops",
    "read_bytes",
    "write_bytes",
    "read_time_ms",
    "write_time_ms",
    "io_time_ms",
    "weighted_io_time_ms",
  ],
  memory_1m: ["org_id", "server_id", "bucket", "total_bytes", "available_bytes", "cached_bytes", "dirty_bytes", "samples"],
} as const;

/** Every index of a relation: its columns in order and how many of them are key columns. */
export const indexColumnsQuery = `
  SELECT i.indexrelid::regclass::text AS name, i.indnkeyatts AS keys,
         array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns
  FROM pg_index i WHERE i.indrelid = $1::regclass`;

export function assertCoveringChartIndex(
  aggregate: keyof typeof chartColumns,
  indexes: { name: string; keys: number; columns: string[] }[],
): void {
  const wanted = chartColumns[aggregate];
  const covering = indexes.find(
    (index) => index.columns.slice(0, 3).join() === "org_id,server_id,bucket" && wanted.every((column) => index.columns.includes(column)),
  );
  assert.ok(
    covering,
    `${aggregate}: no index on (org_id, server_id, bucket …) carrying ${wanted.join(", ")}; found ${JSON.stringify(indexes)}`,
  );
}
