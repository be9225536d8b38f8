import { withSystemTransaction } from "@spindle/db";
import type pg from "pg";

/**
 * How long each table keeps rows in plain mode, matching the TimescaleDB retention policies in
 * packages/db/migrations/20261121080100_telemetry/timescale.sql and
 * 20261121140000_deep_telemetry/timescale.sql, 20261123100000_acceleration_gains/timescale.sql and
 * 20261124100000_alert_ack_filesystem/timescale.sql (and the later families' timescale.sql: sqlserver_stats, disk_io_untimed, read_cache_holdout,
 * read_cache_holdout_bucket).
 */
export const retentionPeriods = [
  { table: "disk_io", timeColumn: "time", keep: "30 days" },
  { table: "memory", timeColumn: "time", keep: "30 days" },
  { table: "disk_io_1m", timeColumn: "bucket", keep: "90 days" },
  { table: "memory_1m", timeColumn: "bucket", keep: "90 days" },
  { table: "disk_io_1h", timeColumn: "bucket", keep: "2 years" },
  { table: "memory_1h", timeColumn: "bucket", keep: "2 years" },
  ...(["disk_latency", "disk_split_io", "page_cache", "pg_database_stats", "pressure", "read_cache", "write_opt", "filesystem", "agent_spool", "sqlserver_stats", "disk_io_untimed", "read_cache_holdout", "read_cache_holdout_bucket"] as const).flatMap((family) => [
    { table: family, timeColumn: "time", keep: "30 days" } as const,
    { table: `${family}_1m`, timeColumn: "bucket", keep: "90 days" } as const,
    { table: `${family}_1h`, timeColumn: "bucket", keep: "2 years" } as const,
  ]),
  { table: "fragmentation_scans", timeColumn: "time", keep: "2 years" },
] as const;

export type RetentionResult = Record<(typeof retentionPeriods)[number]["table"], number>;

/**
 * Plain mode only: deletes rows past their retention period. Deletes go in slices so a backlog
 * (a worker that was down for days) never holds locks or builds WAL in one huge transaction.
 * Retention spans every organisation, so each slice runs as spindle_system: the worker's own
 * role may not delete raw telemetry, and row-level security would hide every rollup row from it.
 */
export async function deleteExpiredTelemetry(
  pool: pg.Pool,
  options: { now?: Date; sliceRows?: number } = {},
): Promise<RetentionResult> {
  const now = options.now ?? new Date();
  const sliceRows = options.sliceRows ?? 50_000;
  const deleted = {} as RetentionResult;
  for (const { table, timeColumn, keep } of retentionPeriods) {
    deleted[table] = 0;
    for (;;) {
      const result = await deleteSlice(pool, `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
           SELECT ctid FROM ${table} WHERE ${timeColumn} < $1::timestamptz - INTERVAL '${keep}' LIMIT $2))`, [now, sliceRows]);
      deleted[table] += result.rowCount ?? 0;
      if ((result.rowCount ?? 0) < sliceRows) break;
    }
  }
  return deleted;
}

async function deleteSlice(pool: pg.Pool, sql: string, params: unknown[]): Promise<pg.QueryResult> {
  const client = await pool.connect();
  try {
    return await withSystemTransaction(client, () => client.query(sql, params));
  } finally {
    client.release();
  }
}

/**
 * Miss-ratio curves (cache_mrc) are a plain table in both time-series modes, so no TimescaleDB
 * policy ages them: this runs in both modes, deleting curves whose window ended over 90 days ago
 * (the recommendations read at most the last 7 days; the rest is history for the chart).
 */
export const curveRetentionTask = "curve-retention";

export const curveRetention = { table: "cache_mrc", timeColumn: "time", keep: "90 days" } as const;

export async function deleteExpiredCurves(pool: pg.Pool, options: { now?: Date; sliceRows?: number } = {}): Promise<number> {
  const now = options.now ?? new Date();
  const sliceRows = options.sliceRows ?? 50_000;
  const { table, timeColumn, keep } = curveRetention;
  let deleted = 0;
  for (;;) {
    const result = await deleteSlice(pool, `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM ${table} WHERE ${timeColumn} < $1::timestamptz - INTERVAL '${keep}' LIMIT $2))`, [now, sliceRows]);
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < sliceRows) return deleted;
  }
}
