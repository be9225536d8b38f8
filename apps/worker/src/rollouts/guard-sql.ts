// The telemetry the guards read, summed per server over a window of raw rows (exact at any window
// length, the same in both time-series modes). The cost-per-I/O sums are those of docs/gains.md's
// verdict metrics plus the read cache's own miss ratio; a server that sent nothing of a family
// has no row, which the guards treat as "not measured", never as 0.
import type { GuardMetricKey } from "@spindle/domain";
import type pg from "pg";

export interface Window {
  start: Date;
  end: Date;
}

export type MetricSums = Map<GuardMetricKey, Map<string, { numerator: number; denominator: number }>>;

const costPerIoSql = `WITH io AS (
    SELECT server_id, sum(read_ops)::float8 AS reads, sum(coalesce(read_ops, 0) + coalesce(write_ops, 0))::float8 AS ios
      FROM disk_io WHERE org_id = $1 AND time >= $2 AND time < $3 GROUP BY server_id
  ), cache AS (
    SELECT server_id, sum(misses)::float8 AS misses, sum(accesses)::float8 AS accesses
      FROM page_cache WHERE org_id = $1 AND time >= $2 AND time < $3 GROUP BY server_id
  ), split AS (
    SELECT server_id, sum(split_ops)::float8 AS split_ops
      FROM disk_split_io WHERE org_id = $1 AND time >= $2 AND time < $3 GROUP BY server_id
  )
  SELECT 'meanReadLatency' AS metric, server_id::text, sum(sum_seconds)::float8 AS numerator, sum(operations)::float8 AS denominator
    FROM disk_latency WHERE org_id = $1 AND time >= $2 AND time < $3 AND operation = 'read' GROUP BY server_id
  UNION ALL SELECT 'pageCacheMissRatio', server_id::text, misses, accesses FROM cache
  UNION ALL SELECT 'splitIosPerIo', server_id::text, split.split_ops, io.ios FROM split JOIN io USING (server_id)
  UNION ALL SELECT 'storageReadsPerAccess', server_id::text, io.reads, cache.accesses FROM io JOIN cache USING (server_id) WHERE io.reads IS NOT NULL
  UNION ALL SELECT 'readCacheMissRatio', server_id::text, sum(misses_bytes)::float8, (sum(misses_bytes) + sum(hits_bytes))::float8
    FROM read_cache WHERE org_id = $1 AND time >= $2 AND time < $3 AND hits_bytes IS NOT NULL AND misses_bytes IS NOT NULL GROUP BY server_id`;

/** Every server of the organisation that sent the metric's families in the window, with its sums. */
export async function loadMetricSums(client: pg.ClientBase, orgId: string, window: Window): Promise<MetricSums> {
  const { rows } = await client.query<{ metric: GuardMetricKey; server_id: string; numerator: number | null; denominator: number | null }>(
    costPerIoSql,
    [orgId, window.start, window.end],
  );
  const sums: MetricSums = new Map();
  for (const row of rows) {
    if (row.numerator === null || row.denominator === null) continue;
    const metric = sums.get(row.metric) ?? new Map();
    metric.set(row.server_id, { numerator: row.numerator, denominator: row.denominator });
    sums.set(row.metric, metric);
  }
  return sums;
}

/** Read-cache backoffs of each server over the window; a server whose cache sent no count is absent. */
export async function loadBackoffs(
  client: pg.ClientBase,
  orgId: string,
  serverIds: readonly string[],
  window: Window,
): Promise<Map<string, number>> {
  const { rows } = await client.query<{ server_id: string; backoffs: number }>(
    `SELECT server_id::text, sum(backoffs)::float8 AS backoffs FROM read_cache
      WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND time >= $3 AND time < $4 AND backoffs IS NOT NULL
      GROUP BY server_id`,
    [orgId, serverIds, window.start, window.end],
  );
  return new Map(rows.map((row) => [row.server_id, row.backoffs]));
}

const bucketColumns = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);

/** Merged latency buckets per server, device and operation (read, write) over the window. */
export async function loadLatencyBuckets(
  client: pg.ClientBase,
  orgId: string,
  serverIds: readonly string[],
  window: Window,
): Promise<Map<string, number[]>> {
  const { rows } = await client.query<{ server_id: string; device: string; operation: string; buckets: number[] }>(
    `SELECT server_id::text, device, operation, ARRAY[${bucketColumns.map((c) => `sum(${c})::float8`).join(", ")}] AS buckets
       FROM disk_latency
      WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND time >= $3 AND time < $4 AND operation IN ('read', 'write')
      GROUP BY server_id, device, operation`,
    [orgId, serverIds, window.start, window.end],
  );
  return new Map(rows.map((row) => [`${row.server_id}\u0000${row.device}\u0000${row.operation}`, row.buckets]));
}

/**
 * Servers whose agent applied some policy or installed another agent version since `since` (their
 * own change would move them): they cannot stand in for "not changed", whichever rollout, upgrade,
 * pin or edit changed them.
 */
export async function loadRecentlyChanged(client: pg.ClientBase, orgId: string, since: Date): Promise<Set<string>> {
  const { rows } = await client.query<{ server_id: string }>(
    `SELECT server_id::text FROM server_policy_status WHERE org_id = $1 AND applied_at >= $2
     UNION SELECT server_id::text FROM agent_upgrades WHERE org_id = $1 AND state = 'installed' AND finished_at >= $2`,
    [orgId, since],
  );
  return new Set(rows.map((row) => row.server_id));
}
