import type pg from "pg";
import { claimPendingSql, lockServersSql, rollupStatementsBySource } from "./rollup-sql.js";

export interface RollupResult {
  /** Pending ranges consumed (one per insert statement and server). */
  rangesProcessed: number;
  /** Distinct servers whose buckets were recomputed. */
  serversRolledUp: number;
}

export interface RollupOptions {
  /** Pending ranges per transaction; a transaction's locks are held while its SQL runs. */
  batchSize?: number;
  /** Stop after this many batches so one call cannot run forever behind a flood of inserts. */
  maxBatches?: number;
}

interface PendingRange {
  /** A raw table with rollups: disk_io, memory, or a deep-telemetry family. */
  source: string;
  org_id: string;
  server_id: string;
  first_time: Date;
  last_time: Date;
}

/**
 * Plain mode only: recomputes the 1-minute and 1-hour buckets touched by rows inserted since
 * the last run (including late rows from an agent's replayed spool), reading the raw rows of
 * just those servers and time spans. Safe to run from any number of workers at once.
 */
export async function rollupPending(pool: pg.Pool, options: RollupOptions = {}): Promise<RollupResult> {
  // Large claims are what lets rollups keep up with a busy gateway: every claim recomputes each
  // touched minute and hour once, however many ranges fed it, so 500 ranges a claim recomputed
  // each hour hundreds of times an hour at ~450 batches/s and fell behind by a minute a minute
  // (docs/benchmarks.md, "Ingest end to end against raw COPY").
  const batchSize = options.batchSize ?? 10_000;
  const maxBatches = options.maxBatches ?? 20;
  const result: RollupResult = { rangesProcessed: 0, serversRolledUp: 0 };
  for (let batch = 0; batch < maxBatches; batch++) {
    const processed = await rollupOneBatch(pool, batchSize);
    result.rangesProcessed += processed.ranges;
    result.serversRolledUp += processed.servers;
    if (processed.ranges < batchSize) break;
  }
  return result;
}

async function rollupOneBatch(pool: pg.Pool, batchSize: number): Promise<{ ranges: number; servers: number }> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // Rollups sum every organisation's pending ranges in one pass, so they run as spindle_system,
    // the one role whose row-level-security policy is not limited to one organisation.
    await client.query("SET LOCAL ROLE spindle_system");
    const { rows } = await client.query<PendingRange>(claimPendingSql, [batchSize]);
    if (rows.length > 0) {
      const servers = [...new Set(rows.map((row) => row.server_id))].sort();
      await client.query(lockServersSql, [servers]);
      for (const [source, statements] of Object.entries(rollupStatementsBySource)) {
        const ranges = rows.filter((row) => row.source === source);
        if (ranges.length === 0) continue;
        const params = [
          ranges.map((row) => row.org_id),
          ranges.map((row) => row.server_id),
          ranges.map((row) => row.first_time),
          ranges.map((row) => row.last_time),
        ];
        for (const statement of statements) await client.query(statement, params);
      }
      await client.query("COMMIT");
      return { ranges: rows.length, servers: servers.length };
    }
    await client.query("COMMIT");
    return { ranges: 0, servers: 0 };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
