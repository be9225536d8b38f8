// SQL for the before/after verdicts. Every comparison reads a few windows per server (the after
// window, the same window on each of the seven previous days, the window before the change), per
// metric, from the 1-minute aggregates: a numerator and a denominator per minute, summed over the
// server's devices. PostgreSQL caps each minute at 5 × the median minute of the server's windows
// (the stall cap of packages/domain/src/gains/verdict/stall-cap.ts, the same rule) and sums each
// window, so one row per server, metric and window comes back, not one per minute. Hourly
// aggregates cannot carry the cap (a stall hides inside its hour), which is why the minutes are
// read; each window is an index range scan on (org_id, server_id, bucket).
// A ratio that needs two families (split I/Os per I/O, storage reads per page access) uses only
// minutes where both were measured.
import { stallCapDefaults } from "@spindle/domain";

/**
 * Per-minute numerators and denominators of the four metrics in the windows $3/$4 (arrays, 1-based
 * window_index). Each family's rows are stacked (UNION ALL) and grouped once per minute rather than
 * aggregated per family and joined: the joins ran as nested loops over every minute pair (22 s for
 * eight days of one server) whenever the planner had no fresh statistics for a growing table, and a
 * stacked GROUP BY costs the same whatever the estimates. A family absent in a minute leaves its
 * sums NULL there, so a ratio needing two families uses only minutes where both were measured.
 */
const minutesCte = `windows AS (
  SELECT w.from_at, w.to_at, w.idx::int AS window_index
  FROM unnest($3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS w(from_at, to_at, idx)
), per_minute AS (
  SELECT window_index, server_id, bucket,
    sum(latency_seconds) AS latency_seconds, sum(latency_reads) AS latency_reads, sum(misses) AS misses,
    sum(accesses) AS accesses, sum(split_ops) AS split_ops, sum(reads) AS reads, sum(ios) AS ios
  FROM (
    SELECT w.window_index, f.server_id, f.bucket, f.sum_seconds::float8 AS latency_seconds, f.operations::float8 AS latency_reads,
      NULL::float8 AS misses, NULL::float8 AS accesses, NULL::float8 AS split_ops, NULL::float8 AS reads, NULL::float8 AS ios
    FROM windows w JOIN disk_latency_1m f ON f.org_id = $1 AND f.server_id = ANY($2::uuid[]) AND f.bucket >= w.from_at AND f.bucket < w.to_at
    WHERE f.operation = 'read'
    UNION ALL
    SELECT w.window_index, f.server_id, f.bucket, NULL, NULL, f.misses::float8, f.accesses::float8, NULL, NULL, NULL
    FROM windows w JOIN page_cache_1m f ON f.org_id = $1 AND f.server_id = ANY($2::uuid[]) AND f.bucket >= w.from_at AND f.bucket < w.to_at
    UNION ALL
    SELECT w.window_index, f.server_id, f.bucket, NULL, NULL, NULL, NULL, f.split_ops::float8, NULL, NULL
    FROM windows w JOIN disk_split_io_1m f ON f.org_id = $1 AND f.server_id = ANY($2::uuid[]) AND f.bucket >= w.from_at AND f.bucket < w.to_at
    UNION ALL
    SELECT w.window_index, f.server_id, f.bucket, NULL, NULL, NULL, NULL, NULL, f.read_ops::float8, (f.read_ops + f.write_ops)::float8
    FROM windows w JOIN disk_io_1m f ON f.org_id = $1 AND f.server_id = ANY($2::uuid[]) AND f.bucket >= w.from_at AND f.bucket < w.to_at
  ) AS family_rows
  GROUP BY window_index, server_id, bucket
), minutes AS (
  SELECT * FROM (
    SELECT 'meanReadLatency' AS metric, window_index, server_id, bucket, latency_seconds AS numerator, latency_reads AS denominator FROM per_minute
    UNION ALL SELECT 'pageCacheMissRatio', window_index, server_id, bucket, misses, accesses FROM per_minute
    UNION ALL SELECT 'splitIosPerIo', window_index, server_id, bucket, split_ops, ios FROM per_minute
    UNION ALL SELECT 'storageReadsPerAccess', window_index, server_id, bucket, reads, accesses FROM per_minute
  ) AS all_minutes
  WHERE numerator IS NOT NULL AND denominator IS NOT NULL
)`;

export type WindowSumsRow = {
  server_id: string;
  metric: string;
  window_index: number;
  numerator: number;
  denominator: number;
  capped_minutes: number;
  /** The stall cap of this server and metric (the same on every window); null: no cap. */
  cap: number | null;
};

/**
 * $1 org, $2 server ids, $3 window starts, $4 window ends (inclusive, exclusive). Per server and
 * metric, the cap is 5 × the median minute ratio over all the windows given for it.
 */
export const windowSumsSql = `WITH ${minutesCte}, caps AS (
  SELECT server_id, metric, NULLIF(${stallCapDefaults.multipleOfMedian}::float8 * percentile_cont(0.5) WITHIN GROUP (ORDER BY numerator / denominator), 0) AS cap
  FROM minutes WHERE denominator > 0
  GROUP BY server_id, metric
)
SELECT m.server_id::text AS server_id, m.metric, m.window_index,
  sum(CASE WHEN c.cap IS NULL THEN m.numerator ELSE least(m.numerator, c.cap * m.denominator) END)::float8 AS numerator,
  sum(m.denominator)::float8 AS denominator,
  (count(*) FILTER (WHERE m.numerator > c.cap * m.denominator))::int AS capped_minutes,
  c.cap
FROM minutes m LEFT JOIN caps c USING (server_id, metric)
GROUP BY m.server_id, m.metric, m.window_index, c.cap`;

export type MinuteRow = { metric: string; window_index: number; bucket: Date; numerator: number; denominator: number };

/** The minutes themselves, uncapped, for the block-bootstrap fallback (one server, two windows). */
export const windowMinutesSql = `WITH ${minutesCte}
SELECT metric, window_index, bucket, numerator, denominator FROM minutes ORDER BY metric, window_index, bucket`;

/** The oldest telemetry of a server: how far back its previous days reach (hourly, so cheap). */
export const historyStartSql = `SELECT min(bucket) AS start FROM disk_io_1h WHERE org_id = $1 AND server_id = $2`;

export type ControlCandidateRow = { server_id: string; hostname: string };

/**
 * Servers of the organisation not changed since `$3`: the last policy their agent applied is older,
 * or they never applied one (only the latest apply is kept, so a server applied again later is
 * left out: it may have changed inside the windows). $2 the changed server, $4 how many at most,
 * by hostname so the choice never depends on the data.
 */
export const controlCandidatesSql = `SELECT s.id::text AS server_id, s.hostname
FROM servers s LEFT JOIN server_policy_status st ON st.org_id = s.org_id AND st.server_id = s.id
WHERE s.org_id = $1 AND s.id <> $2 AND (st.applied_at IS NULL OR st.applied_at < $3)
ORDER BY s.hostname, s.id
LIMIT $4`;

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
