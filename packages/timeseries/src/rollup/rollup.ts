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
  /** Stop a source after this many batches so one call cannot run forever behind a flood of inserts. */
  maxBatches?: number;
  /** Sources rolled up at once, each on its own connection (the pool must have them to spare). */
  parallelSources?: number;
}

interface PendingRange {
  /** A raw table with rollups: disk_io, memory, or a deep-telemetry family. */
  source: string;
  org_id: string;
  server_id: string;
  first_time: Date;
  last_time: Date;
}

/** Connections the rollup job uses at once by default (apps/worker/src/main.ts sizes the pool). */
export const defaultParallelSources = 3;

/**
 * Plain mode only: recomputes the 1-minute buckets touched by rows inserted since the last run
 * (including late rows from an agent's replayed spool), reading the raw rows of just those
 * servers and time spans, and brings their hours up to date by what those minutes changed
 * (memory: by recomputing the touched hours from their minutes). Safe to run from any number of
 * workers at once.
 *
 * Each source (raw table) is claimed and rolled up in transactions of its own, several sources
 * at once: their rollup tables are disjoint, and one after another on one connection the
 * families' recomputes fell behind a busy gateway (docs/benchmarks.md, "Ingest end to end
 * against raw COPY").
 */
export async function rollupPending(pool: pg.Pool, options: RollupOptions = {}): Promise<RollupResult> {
  // Large claims are what lets rollups keep up with a busy gateway: every claim recomputes each
  // touched minute once, however many ranges fed it, so 500 ranges a claim recomputed each
  // minute (and, before hours took their minutes' changes, each hour) many times over at ~450
  // batches/s and fell behind by a minute a minute.
  const batchSize = options.batchSize ?? 10_000;
  const maxBatches = options.maxBatches ?? 20;
  const sources = Object.keys(rollupStatementsBySource);
  const servers = new Set<string>();
  let rangesProcessed = 0;
  const next = async (): Promise<void> => {
    for (let source = sources.shift(); source !== undefined; source = sources.shift()) {
      for (let batch = 0; batch < maxBatches; batch++) {
        const processed = await rollupOneBatch(pool, source, batchSize);
        rangesProcessed += processed.ranges;
        for (const server of processed.servers) servers.add(server);
        if (processed.ranges < batchSize) break;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallelSources ?? defaultParallelSources) }, next));
  return { rangesProcessed, serversRolledUp: servers.size };
}

async function rollupOneBatch(pool: pg.Pool, source: string, batchSize: number): Promise<{ ranges: number; servers: string[] }> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // Rollups sum every organisation's pending ranges in one pass, so they run as spindle_system,
    // the one role whose row-level-security policy is not limited to one organisation.
    await client.query("SET LOCAL ROLE spindle_system");
    // The statements' cost estimates cross the JIT threshold, and compiling them took about a
    // second a statement, more than the index lookups they run.
    await client.query("SET LOCAL jit = off");
    const { rows } = await client.query<PendingRange>(claimPendingSql, [batchSize, source]);
    if (rows.length > 0) {
      const servers = [...new Set(rows.map((row) => row.server_id))].sort();
      await client.query(lockServersSql, [servers, source]);
      const params = [
        rows.map((row) => row.org_id),
        rows.map((row) => row.server_id),
        rows.map((row) => row.first_time),
        rows.map((row) => row.last_time),
      ];
      for (const statement of rollupStatementsBySource[source]!) await client.query(statement, params);
      await client.query("COMMIT");
      return { ranges: rows.length, servers };
    }
    await client.query("COMMIT");
    return { ranges: 0, servers: [] };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
