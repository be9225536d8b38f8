// Brings the aggregates up to date after a test inserted raw rows. On TimescaleDB they are
// continuous aggregates and a refresh does it; on plain PostgreSQL they are tables that the
// worker's rollup job maintains, so this writes the same sums in the shape docs/metrics.md gives.
import type { Pool } from "@/lib/db";

const diskCounters = [
  "interval_seconds", "read_ops", "write_ops", "read_bytes", "write_bytes", "read_merged",
  "write_merged", "read_time_ms", "write_time_ms", "io_time_ms", "weighted_io_time_ms",
];
const memoryGauges = [
  "total_bytes", "available_bytes", "free_bytes", "cached_bytes", "buffers_bytes", "dirty_bytes",
  "swap_total_bytes", "swap_free_bytes",
];

function diskRollup(table: string, unit: "minute" | "hour"): string {
  return `INSERT INTO ${table} (bucket, org_id, server_id, device, ${diskCounters.join(", ")}, in_progress_max, samples)
SELECT date_trunc('${unit}', time), org_id, server_id, device, ${diskCounters.map((c) => `sum(${c})`).join(", ")}, max(in_progress), count(*)
FROM disk_io GROUP BY 1, 2, 3, 4`;
}

function memoryRollup(table: string, unit: "minute" | "hour"): string {
  return `INSERT INTO ${table} (bucket, org_id, server_id, ${memoryGauges.join(", ")}, available_min_bytes, samples)
SELECT date_trunc('${unit}', time), org_id, server_id, ${memoryGauges.map((c) => `avg(${c})`).join(", ")}, min(available_bytes), count(*)
FROM memory GROUP BY 1, 2, 3`;
}

const aggregates = [
  { table: "disk_io_1m", sql: diskRollup("disk_io_1m", "minute") },
  { table: "disk_io_1h", sql: diskRollup("disk_io_1h", "hour") },
  { table: "memory_1m", sql: memoryRollup("memory_1m", "minute") },
  { table: "memory_1h", sql: memoryRollup("memory_1h", "hour") },
];

export async function rollUpAggregates(pool: Pool): Promise<void> {
  for (const { table, sql } of aggregates) {
    const kind = await pool.query<{ relkind: string }>("SELECT relkind FROM pg_class WHERE relname = $1 AND relkind IN ('r', 'v', 'm')", [table]);
    const relkind = kind.rows[0]?.relkind;
    if (!relkind) throw new Error(`${table} does not exist: is the test template migrated?`);
    if (relkind === "r") {
      await pool.query(`TRUNCATE ${table}`);
      await pool.query(sql);
    } else {
      await pool.query(`CALL refresh_continuous_aggregate('${table}', NULL, NULL)`);
    }
  }
}
