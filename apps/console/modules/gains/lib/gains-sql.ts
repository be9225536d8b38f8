// SQL for the gains page. Table names come from tableAt (a closed set), never from input. Every
// statement filters on org_id and on servers already looked up in the caller's organisation.
// sum() of a NULL-only column is NULL: "the agent never sent it", kept apart from a real 0.
import { tableAt, type Resolution } from "./gains-range";

/**
 * The memory-read latency gauge, merged exactly across rows: Σ(latency × timed reads) / Σ timed
 * reads. Raw rows carry the gauge and its sample count; the aggregates keep the weighted sum
 * (see packages/db/migrations/20261123100000_acceleration_gains).
 */
function memoryLatencyColumns(resolution: Resolution) {
  return resolution === "raw"
    ? {
        weighted: "memory_read_latency_seconds * memory_read_latency_samples",
        samples: "CASE WHEN memory_read_latency_seconds IS NOT NULL THEN memory_read_latency_samples END",
      }
    : { weighted: "memory_read_latency_weighted_seconds", samples: "memory_read_latency_samples" };
}

const rowCount = (resolution: Resolution) => (resolution === "raw" ? "count(*)" : "sum(samples)");

export type ReadCacheSumsRow = {
  server_id: string;
  rows: number;
  hits_bytes: number | null;
  misses_bytes: number | null;
  memory_latency_weighted: number | null;
  memory_latency_samples: number | null;
};

/** $1 org, $2 server ids, $3 from (exclusive), $4 to (inclusive). */
export function readCacheSumsSql(resolution: Resolution): string {
  const { table, time } = tableAt("read_cache", resolution);
  const latency = memoryLatencyColumns(resolution);
  return `SELECT server_id::text AS server_id, ${rowCount(resolution)}::float8 AS rows,
  sum(hits_bytes)::float8 AS hits_bytes, sum(misses_bytes)::float8 AS misses_bytes,
  sum(${latency.weighted})::float8 AS memory_latency_weighted, sum(${latency.samples})::float8 AS memory_latency_samples
FROM ${table}
WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND ${time} > $3 AND ${time} <= $4
GROUP BY server_id`;
}

export type WriteOptSumsRow = {
  server_id: string;
  rows: number;
  preallocated_bytes: number | null;
  files_defragmented: number | null;
  managed_grown_bytes: number | null;
  managed_extents_added: number | null;
  unmanaged_grown_bytes: number | null;
  unmanaged_extents_added: number | null;
};

const writeOptCounters = [
  "preallocated_bytes",
  "files_defragmented",
  "managed_grown_bytes",
  "managed_extents_added",
  "unmanaged_grown_bytes",
  "unmanaged_extents_added",
] as const;

export function writeOptSumsSql(resolution: Resolution): string {
  const { table, time } = tableAt("write_opt", resolution);
  return `SELECT server_id::text AS server_id, ${rowCount(resolution)}::float8 AS rows,
  ${writeOptCounters.map((column) => `sum(${column})::float8 AS ${column}`).join(", ")}
FROM ${table}
WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND ${time} > $3 AND ${time} <= $4
GROUP BY server_id`;
}

export type StorageReadsRow = {
  server_id: string;
  device: string;
  read_ops: number | null;
  read_bytes: number | null;
  latency_operations: number | null;
  latency_sum_seconds: number | null;
  /** For the devices' physical bound: writes, busy time (io_time) and observed time. */
  write_ops: number | null;
  io_time_ms: number | null;
  observed_seconds: number | null;
};

/**
 * Per server and device: diskstats reads (and writes, busy and observed time, for what the
 * device could have served), and the eBPF read-latency histogram's count and sum.
 */
export function storageReadsSql(resolution: Resolution): string {
  const disk = tableAt("disk_io", resolution);
  const latency = tableAt("disk_latency", resolution);
  return `WITH io AS (
  SELECT server_id, device, sum(read_ops)::float8 AS read_ops, sum(read_bytes)::float8 AS read_bytes,
         sum(write_ops)::float8 AS write_ops, sum(io_time_ms)::float8 AS io_time_ms, sum(interval_seconds)::float8 AS observed_seconds
  FROM ${disk.table}
  WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND ${disk.time} > $3 AND ${disk.time} <= $4
  GROUP BY server_id, device
), latency AS (
  SELECT server_id, device, sum(operations)::float8 AS latency_operations, sum(sum_seconds)::float8 AS latency_sum_seconds
  FROM ${latency.table}
  WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND ${latency.time} > $3 AND ${latency.time} <= $4 AND operation = 'read'
  GROUP BY server_id, device
)
SELECT server_id::text AS server_id, device, io.read_ops, io.read_bytes, latency.latency_operations, latency.latency_sum_seconds,
       io.write_ops, io.io_time_ms, io.observed_seconds
FROM io FULL JOIN latency USING (server_id, device)
ORDER BY server_id, device`;
}

export type HoldoutUnitRow = {
  server_id: string;
  /** Mean holdout percent of the unit's rows. */
  holdout_percent: number | null;
  managed_accessed_bytes: number;
  managed_missed_bytes: number;
  control_accessed_bytes: number;
  control_missed_bytes: number;
  own_read_bytes: number;
  own_page_hit_bytes: number;
  rows: number;
};

/**
 * The read cache's control group, one unit per agent interval (raw rows) or bucket, per server in
 * time order: the units the caused estimate resamples. The agent sends the columns together, so
 * a unit either has them all or is not a row.
 */
export function holdoutUnitsSql(resolution: Resolution): string {
  const { table, time } = tableAt("read_cache_holdout", resolution);
  const holdout = resolution === "raw" ? "holdout_percent::float8" : "holdout_percent_sum::float8 / nullif(holdout_percent_samples, 0)";
  return `SELECT server_id::text AS server_id, ${holdout} AS holdout_percent,
  managed_accessed_bytes::float8 AS managed_accessed_bytes, managed_missed_bytes::float8 AS managed_missed_bytes,
  control_accessed_bytes::float8 AS control_accessed_bytes, control_missed_bytes::float8 AS control_missed_bytes,
  own_read_bytes::float8 AS own_read_bytes, own_page_hit_bytes::float8 AS own_page_hit_bytes, ${resolution === "raw" ? "1" : "samples"}::float8 AS rows
FROM ${table}
WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND ${time} > $3 AND ${time} <= $4
  AND managed_accessed_bytes IS NOT NULL AND control_accessed_bytes IS NOT NULL
ORDER BY server_id, ${time}`;
}

export type HoldoutBucketRow = {
  server_id: string;
  hash_bucket: number;
  managed_accessed_bytes: number;
  managed_missed_bytes: number;
  control_accessed_bytes: number;
  control_missed_bytes: number;
  /** Agent intervals that sent the bucket. */
  rows: number;
};

/**
 * The same counters per hash bucket of page groups, each summed over the whole range, per server:
 * the caused estimate's interval takes its variance from the spread between them. Older agents send none.
 */
export function holdoutBucketsSql(resolution: Resolution): string {
  const { table, time } = tableAt("read_cache_holdout_bucket", resolution);
  return `SELECT server_id::text AS server_id, hash_bucket::int AS hash_bucket,
  sum(managed_accessed_bytes)::float8 AS managed_accessed_bytes, sum(managed_missed_bytes)::float8 AS managed_missed_bytes,
  sum(control_accessed_bytes)::float8 AS control_accessed_bytes, sum(control_missed_bytes)::float8 AS control_missed_bytes,
  ${resolution === "raw" ? "count(*)" : "sum(samples)"}::float8 AS rows
FROM ${table}
WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND ${time} > $3 AND ${time} <= $4
GROUP BY server_id, hash_bucket
ORDER BY server_id, hash_bucket`;
}

export type ReadSeriesRow = { t: number; interval_seconds: number; hits_bytes: number | null; misses_bytes: number | null };

/** Memory vs storage reads of the read cache's files over time, one point per row or bucket. */
export function readSeriesSql(resolution: Resolution): string {
  const { table, time } = tableAt("read_cache", resolution);
  return `SELECT extract(epoch FROM ${time})::float8 AS t, sum(interval_seconds)::float8 AS interval_seconds,
  sum(hits_bytes)::float8 AS hits_bytes, sum(misses_bytes)::float8 AS misses_bytes
FROM ${table}
WHERE org_id = $1 AND server_id = $2 AND ${time} > $3 AND ${time} <= $4
GROUP BY ${time}
ORDER BY ${time}`;
}
