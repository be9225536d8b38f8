// SQL for the before/after verdicts. Units are 1-minute buckets (a window spans up to a day, so at
// most 1,440 units a side), one per metric: a numerator and a denominator per bucket, summed over
// the server's devices. A ratio that needs two families (split I/Os per I/O, storage reads per
// page access) uses only minutes where both were measured.

export type VerdictUnitRow = { metric: string; numerator: number; denominator: number };

/** $1 org, $2 server, $3 window start (inclusive), $4 window end (exclusive). */
export const verdictUnitsSql = `WITH latency AS (
  SELECT bucket, sum(sum_seconds)::float8 AS seconds, sum(operations)::float8 AS reads
  FROM disk_latency_1m
  WHERE org_id = $1 AND server_id = $2 AND bucket >= $3 AND bucket < $4 AND operation = 'read'
  GROUP BY bucket
), cache AS (
  SELECT bucket, sum(misses)::float8 AS misses, sum(accesses)::float8 AS accesses
  FROM page_cache_1m
  WHERE org_id = $1 AND server_id = $2 AND bucket >= $3 AND bucket < $4
  GROUP BY bucket
), split AS (
  SELECT bucket, sum(split_ops)::float8 AS split_ops
  FROM disk_split_io_1m
  WHERE org_id = $1 AND server_id = $2 AND bucket >= $3 AND bucket < $4
  GROUP BY bucket
), io AS (
  SELECT bucket, sum(read_ops)::float8 AS reads, sum(read_ops + write_ops)::float8 AS ios
  FROM disk_io_1m
  WHERE org_id = $1 AND server_id = $2 AND bucket >= $3 AND bucket < $4
  GROUP BY bucket
)
SELECT 'meanReadLatency' AS metric, seconds AS numerator, reads AS denominator FROM latency
UNION ALL SELECT 'pageCacheMissRatio', misses, accesses FROM cache
UNION ALL SELECT 'splitIosPerIo', split.split_ops, io.ios FROM split JOIN io USING (bucket)
UNION ALL SELECT 'storageReadsPerAccess', io.reads, cache.accesses FROM io JOIN cache USING (bucket)`;

/** The oldest telemetry of a server: how far back a matched window can reach. */
export const historyStartSql = `SELECT min(bucket) AS start FROM disk_io_1m WHERE org_id = $1 AND server_id = $2`;

export type AppliedChangeRow = {
  server_id: string;
  hostname: string;
  applied_at: Date | null;
  status: string | null;
  applied_hash: string | null;
  effective_hash: string | null;
  layers: { versionId: string; policyName: string; version: number }[] | null;
  newest_layer_version_id: string | null;
};

/**
 * Servers of the organisation with the policy change their agent applied last: when, and the
 * layers of the effective policy in force (the newest-saved layer version is the change's cause
 * when it was saved before the apply). $1 org, $2 server ids (NULL: all).
 */
export const appliedChangesSql = `SELECT s.id::text AS server_id, s.hostname, st.applied_at, st.status, st.applied_hash, ep.hash AS effective_hash, ep.layers,
  (SELECT v.id::text FROM policy_versions v
   WHERE v.org_id = s.org_id AND v.id::text IN (SELECT layer->>'versionId' FROM jsonb_array_elements(ep.layers) AS layer)
   ORDER BY v.created_at DESC LIMIT 1) AS newest_layer_version_id
FROM servers s
LEFT JOIN server_policy_status st ON st.org_id = s.org_id AND st.server_id = s.id
LEFT JOIN server_effective_policies ep ON ep.org_id = s.org_id AND ep.server_id = s.id
WHERE s.org_id = $1 AND ($2::uuid[] IS NULL OR s.id = ANY($2::uuid[]))
ORDER BY s.hostname`;

export type PolicyVersionRow = { id: string; created_at: Date; policy_name: string };

/** One version of a policy of the organisation. $1 org, $2 policy, $3 version number. */
export const policyVersionSql = `SELECT v.id::text AS id, v.created_at, p.name AS policy_name
FROM policy_versions v JOIN policies p ON p.org_id = v.org_id AND p.id = v.policy_id
WHERE v.org_id = $1 AND v.policy_id = $2 AND v.version = $3`;
