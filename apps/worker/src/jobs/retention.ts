import { withSystemTransaction } from "@spindle/db";
import { familyRetention } from "@spindle/domain";
import type pg from "pg";

/**
 * How long each table keeps rows in plain mode: the family descriptors' retention (generated
 * from packages/domain/metrics/catalogue.json), which the TimescaleDB retention policies of the
 * same declaration apply in the other mode.
 */
export const retentionPeriods = familyRetention;

export type RetentionResult = Record<string, number>;

/**
 * Plain mode only: deletes rows past their retention period. Deletes go in slices so a backlog
 * (a worker that was down for days) never holds locks or builds WAL in one huge transaction.
 * Retention spans every organisation, so each slice runs as spindle_system: the worker's own
 * role may not delete raw telemetry, and row-level security would hide every rollup row from it.
 */
export async function deleteExpiredTelemetry(pool: pg.Pool, options: { now?: Date; sliceRows?: number } = {}): Promise<RetentionResult> {
  const now = options.now ?? new Date();
  const sliceRows = options.sliceRows ?? 50_000;
  const deleted = {} as RetentionResult;
  for (const { table, timeColumn, keep } of retentionPeriods) {
    deleted[table] = 0;
    for (;;) {
      const result = await deleteSlice(
        pool,
        `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
           SELECT ctid FROM ${table} WHERE ${timeColumn} < $1::timestamptz - INTERVAL '${keep}' LIMIT $2))`,
        [now, sliceRows],
      );
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
    const result = await deleteSlice(
      pool,
      `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM ${table} WHERE ${timeColumn} < $1::timestamptz - INTERVAL '${keep}' LIMIT $2))`,
      [now, sliceRows],
    );
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < sliceRows) return deleted;
  }
}
