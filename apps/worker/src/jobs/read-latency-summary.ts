// One merged read latency histogram per server over the last hour (server_read_latency), what
// the console's fleet page reads its p99 figures from (migration 20261128171000). Merging an
// hour of 1-minute histograms for a whole fleet on each page view read some 240,000 rows per
// 1,000 servers (docs/benchmarks.md, "Fleet page"); this job does it once every few minutes for
// every organisation, in one statement, and the page adds up a group's rows. Both time-series
// modes: disk_latency_1m is a rollup table or a continuous aggregate with the same columns.
import { withSystemTransaction } from "@spindle/db";
import type pg from "pg";

export const readLatencySummaryTask = "read_latency_summary";
export const readLatencySummaryJobSpec = { queueName: "telemetry-summary", jobKey: readLatencySummaryTask, maxAttempts: 3 } as const;
export const READ_LATENCY_WINDOW_SECONDS = 3600;

const bucketSums = Array.from({ length: 28 }, (_, i) => `sum(l.bucket_${String(i).padStart(2, "0")})::float8`).join(", ");

/**
 * Replaces every summary with the hour of complete minutes before `now`: servers with a timed
 * read get a row; a server with none in the window loses its row (not measured, never 0). Runs
 * as spindle_system, across organisations; each row keeps its own org_id.
 */
export async function refreshReadLatencySummaries(pool: pg.Pool, now = new Date()): Promise<{ servers: number; removed: number }> {
  const windowEnd = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const windowStart = new Date(windowEnd.getTime() - READ_LATENCY_WINDOW_SECONDS * 1000);
  const client = await pool.connect();
  try {
    return await withSystemTransaction(client, async () => {
      const {
        rows: [counts],
      } = await client.query<{ servers: number; removed: number }>(
        `
        WITH fresh AS (
          SELECT l.org_id, l.server_id, sum(l.operations)::float8 AS reads, ARRAY[${bucketSums}] AS buckets
          FROM disk_latency_1m l
          JOIN servers s ON s.id = l.server_id AND s.org_id = l.org_id
          WHERE l.operation = 'read' AND l.bucket > $1::timestamptz AND l.bucket <= $2::timestamptz
          GROUP BY l.org_id, l.server_id
          HAVING sum(l.operations) > 0
        ), upserted AS (
          INSERT INTO server_read_latency AS r (org_id, server_id, window_start, window_end, reads, buckets, computed_at)
          SELECT org_id, server_id, $1::timestamptz, $2::timestamptz, reads, buckets, now() FROM fresh
          ON CONFLICT (server_id) DO UPDATE SET window_start = EXCLUDED.window_start, window_end = EXCLUDED.window_end,
            reads = EXCLUDED.reads, buckets = EXCLUDED.buckets, computed_at = EXCLUDED.computed_at
          WHERE r.org_id = EXCLUDED.org_id
          RETURNING server_id
        ), removed AS (
          DELETE FROM server_read_latency WHERE server_id NOT IN (SELECT server_id FROM upserted) RETURNING server_id
        )
        SELECT (SELECT count(*) FROM upserted)::int AS servers, (SELECT count(*) FROM removed)::int AS removed`,
        [windowStart, windowEnd],
      );
      return counts!;
    });
  } finally {
    client.release();
  }
}
