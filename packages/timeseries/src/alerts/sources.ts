// The SQL behind each alert source (@spindle/domain alertSignals says what the numbers mean).
// Bucket sources read the 1-minute aggregates, which have the same names and columns in both
// time-series modes; snapshot sources read relational rows as of the evaluation. Every query
// names the organisation: with row-level security as the second wall, never the only one.
import { latencyBucketColumns, type AlertSource, type BucketSource, type SourceRow } from "@spindle/domain";
import type { TenantQueryable } from "@spindle/db";

/** A subject's rows from one source, with its identity. */
export interface SubjectRows {
  serverId: string;
  component: string;
  rows: SourceRow[];
}

export interface SourceQuery {
  orgId: string;
  /** Bucket sources: buckets starting in [from, to). Snapshot sources: evidence since `from`. */
  from: Date;
  /** The evaluation time. */
  to: Date;
  /** The organisation's servers to read. */
  serverIds: readonly string[];
}

const epochMs = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8 AS start`;
const latencyColumns = latencyBucketColumns.map((c) => `${c}::float8 AS ${c}`).join(", ");

// Each statement takes $1 = org, $2 = from, $3 = to, $4 = the organisation's server ids, and
// returns server_id, component, start and the signal columns as float8 (so node-postgres
// returns numbers, not strings). Naming the servers lets every 1-minute aggregate be read
// through its (org_id, server_id, bucket) key, one short range per server, however long the
// retained history is.
const statements: Record<AlertSource, string> = {
  disk_io: `SELECT server_id::text, device AS component, ${epochMs("bucket")}, interval_seconds::float8 AS interval_seconds,
      read_ops::float8 AS read_ops, write_ops::float8 AS write_ops, read_time_ms::float8 AS read_time_ms,
      write_time_ms::float8 AS write_time_ms, io_time_ms::float8 AS io_time_ms, weighted_io_time_ms::float8 AS weighted_io_time_ms
    FROM disk_io_1m WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND bucket >= $2 AND bucket < $3`,
  disk_latency_read: `SELECT server_id::text, device AS component, ${epochMs("bucket")}, operations::float8 AS operations,
      sum_seconds::float8 AS sum_seconds, ${latencyColumns}
    FROM disk_latency_1m WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND operation = 'read' AND bucket >= $2 AND bucket < $3`,
  disk_latency_write: `SELECT server_id::text, device AS component, ${epochMs("bucket")}, operations::float8 AS operations,
      sum_seconds::float8 AS sum_seconds, ${latencyColumns}
    FROM disk_latency_1m WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND operation = 'write' AND bucket >= $2 AND bucket < $3`,
  // The split share divides by the same device's completed I/Os in the same minute.
  disk_split_io: `SELECT s.server_id::text, s.device AS component, ${epochMs("s.bucket")}, s.interval_seconds::float8 AS interval_seconds,
      s.split_ops::float8 AS split_ops, coalesce(d.read_ops + d.write_ops, 0)::float8 AS operations
    FROM disk_split_io_1m s
    LEFT JOIN disk_io_1m d ON d.org_id = s.org_id AND d.server_id = s.server_id AND d.device = s.device AND d.bucket = s.bucket
    WHERE s.org_id = $1 AND s.server_id = ANY ($4::uuid[]) AND s.bucket >= $2 AND s.bucket < $3`,
  page_cache: `SELECT server_id::text, '' AS component, ${epochMs("bucket")}, interval_seconds::float8 AS interval_seconds,
      accesses::float8 AS accesses, misses::float8 AS misses
    FROM page_cache_1m WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND bucket >= $2 AND bucket < $3`,
  // backoffs is NULL in a bucket where the agent did not send it (read cache off): not measured.
  read_cache: `SELECT server_id::text, '' AS component, ${epochMs("bucket")}, coalesce(backoffs, 0)::float8 AS backoffs,
      (backoffs IS NOT NULL)::int::float8 AS backoffs_reported
    FROM read_cache_1m WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND bucket >= $2 AND bucket < $3`,
  // Gauge sums per minute; the signal divides by samples.
  agent_spool: `SELECT server_id::text, '' AS component, ${epochMs("bucket")}, pending_batches::float8 AS pending_batches,
      spool_bytes::float8 AS spool_bytes, samples::float8 AS samples
    FROM agent_spool_1m WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND bucket >= $2 AND bucket < $3`,
  // Least squares of each file system's 1-minute mean available bytes against time over the
  // window, x = seconds from the evaluation (minute midpoints), so the intercept is the fitted
  // available space now; with the newest minute's size and available space for the floor.
  filesystem_fill: `WITH minutes AS (
        SELECT server_id, mountpoint, bucket, available_bytes::float8 / samples AS available, size_bytes::float8 / samples AS size,
          extract(epoch FROM bucket + INTERVAL '30 seconds' - $3::timestamptz)::float8 AS x
        FROM filesystem_1m WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND bucket >= $2 AND bucket < $3 AND samples > 0),
      fit AS (
        SELECT server_id, mountpoint, count(*)::float8 AS buckets, regr_slope(available, x) AS slope, regr_intercept(available, x) AS intercept
        FROM minutes GROUP BY server_id, mountpoint),
      newest AS (
        SELECT DISTINCT ON (server_id, mountpoint) server_id, mountpoint, available, size FROM minutes ORDER BY server_id, mountpoint, bucket DESC)
    SELECT f.server_id::text, f.mountpoint AS component, ${epochMs("$3::timestamptz")}, f.buckets,
      coalesce(f.slope, 0)::float8 AS slope_bytes_per_second, coalesce(f.intercept, n.available)::float8 AS fitted_available_bytes,
      n.size AS size_bytes, n.available AS available_bytes
    FROM fit f JOIN newest n USING (server_id, mountpoint)`,
  // Servers whose credential was revoked are gone on purpose, not offline.
  agent_liveness: `SELECT s.id::text AS server_id, '' AS component, ${epochMs("$3::timestamptz")},
      greatest(0, extract(epoch FROM $3::timestamptz - coalesce(s.last_seen_at, s.created_at)))::float8 AS seconds_since_data
    FROM servers s
    WHERE s.org_id = $1 AND s.id = ANY ($4::uuid[]) AND $2::timestamptz IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM agents a WHERE a.org_id = s.org_id AND a.server_id = s.id AND a.revoked_at IS NOT NULL)`,
  policy_status: `SELECT server_id::text, '' AS component, ${epochMs("$3::timestamptz")}, (status = 'failed')::int::float8 AS failed
    FROM server_policy_status WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND $2::timestamptz IS NOT NULL`,
  // Rolled back by a staged rollout that is still paused on it (resumed or aborted: 0 again).
  rollout_status: `SELECT s.id::text AS server_id, '' AS component, ${epochMs("$3::timestamptz")},
      EXISTS (SELECT 1 FROM rollout_servers rs JOIN rollouts r ON r.org_id = rs.org_id AND r.id = rs.rollout_id
              WHERE rs.org_id = s.org_id AND rs.server_id = s.id AND rs.state = 'rolled_back' AND r.status = 'paused')::int::float8 AS rolled_back
    FROM servers s WHERE s.org_id = $1 AND s.id = ANY ($4::uuid[]) AND $2::timestamptz IS NOT NULL`,
  // A capability is lost when the newest batch no longer lists it but its data arrived since $2.
  ebpf_capabilities: `SELECT a.server_id::text, '' AS component, ${epochMs("$3::timestamptz")}, (
        (NOT ('ebpf.block_latency' = ANY (a.telemetry_capabilities)) AND EXISTS (SELECT 1 FROM disk_latency_1h x
          WHERE x.org_id = $1 AND x.server_id = a.server_id AND x.bucket >= date_trunc('hour', $2::timestamptz) AND x.bucket < $3))::int
      + (NOT ('ebpf.block_split' = ANY (a.telemetry_capabilities)) AND EXISTS (SELECT 1 FROM disk_split_io_1h x
          WHERE x.org_id = $1 AND x.server_id = a.server_id AND x.bucket >= date_trunc('hour', $2::timestamptz) AND x.bucket < $3))::int
      + (NOT ('ebpf.page_cache' = ANY (a.telemetry_capabilities)) AND EXISTS (SELECT 1 FROM page_cache_1h x
          WHERE x.org_id = $1 AND x.server_id = a.server_id AND x.bucket >= date_trunc('hour', $2::timestamptz) AND x.bucket < $3))::int
      )::float8 AS lost
    FROM agents a WHERE a.org_id = $1 AND a.server_id = ANY ($4::uuid[]) AND a.revoked_at IS NULL AND a.telemetry_capabilities_at IS NOT NULL`,
  // The newest scan of each root, and its newest scan at least one window older.
  fragmentation_growth: `WITH newest AS (
        SELECT DISTINCT ON (server_id, root) server_id, root, excess_extents FROM fragmentation_scans
        WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND time <= $3 ORDER BY server_id, root, time DESC),
      before AS (
        SELECT DISTINCT ON (server_id, root) server_id, root, excess_extents FROM fragmentation_scans
        WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND time <= $2 ORDER BY server_id, root, time DESC)
    SELECT n.server_id::text, n.root AS component, ${epochMs("$3::timestamptz")}, n.excess_extents::float8 AS excess_now,
      coalesce(b.excess_extents, 0)::float8 AS excess_before, (b.root IS NOT NULL)::int::float8 AS has_before
    FROM newest n LEFT JOIN before b USING (server_id, root)`,
};

/** The summed columns of each bucket source (the same names its statement returns). */
const bucketColumns: Record<BucketSource, readonly string[]> = {
  disk_io: ["interval_seconds", "read_ops", "write_ops", "read_time_ms", "write_time_ms", "io_time_ms", "weighted_io_time_ms"],
  disk_latency_read: ["operations", "sum_seconds", ...latencyBucketColumns],
  disk_latency_write: ["operations", "sum_seconds", ...latencyBucketColumns],
  disk_split_io: ["interval_seconds", "split_ops", "operations"],
  page_cache: ["interval_seconds", "accesses", "misses"],
  read_cache: ["backoffs", "backoffs_reported"],
  agent_spool: ["pending_batches", "spool_bytes", "samples"],
};

/** Which buckets a source has for a subject: its table, component and filter (keys only, so the primary key answers). */
const bucketPresence: Record<BucketSource, { table: string; component: string; filter: string }> = {
  disk_io: { table: "disk_io_1m", component: "device", filter: "" },
  disk_latency_read: { table: "disk_latency_1m", component: "device", filter: "AND operation = 'read'" },
  disk_latency_write: { table: "disk_latency_1m", component: "device", filter: "AND operation = 'write'" },
  disk_split_io: { table: "disk_split_io_1m", component: "device", filter: "" },
  page_cache: { table: "page_cache_1m", component: "''", filter: "" },
  read_cache: { table: "read_cache_1m", component: "''", filter: "" },
  agent_spool: { table: "agent_spool_1m", component: "''", filter: "" },
};

/**
 * A bucket source summed over the window in the database: per subject one row holding the
 * window's column sums (start = its newest bucket in the window), or, when the subject has no
 * bucket in the window but one since `from`, an empty row at its newest bucket (for the no-data
 * decision). Rules evaluated on window sums (every aggregation but max and min) give the same
 * answer as on the minutes; the worker reads one row per subject, and the wide columns only for
 * the window.
 */
export async function fetchWindowSums(
  tx: TenantQueryable,
  source: BucketSource,
  query: SourceQuery,
  windowStart: Date,
): Promise<Map<string, SubjectRows>> {
  const columns = bucketColumns[source];
  const sums = await tx.query(
    `SELECT server_id, component, max(start) AS start, ${columns.map((c) => `sum(${c})::float8 AS ${c}`).join(", ")}
       FROM (${statements[source]}) minutes GROUP BY server_id, component`,
    [query.orgId, windowStart, query.to, query.serverIds],
  );
  const presence = bucketPresence[source];
  const earlier = await tx.query(
    `SELECT server_id::text, ${presence.component} AS component, ${epochMs("max(bucket)")}
       FROM ${presence.table} WHERE org_id = $1 AND server_id = ANY ($4::uuid[]) AND bucket >= $2 AND bucket < $3 ${presence.filter}
      GROUP BY 1, 2`,
    [query.orgId, query.from, windowStart, query.serverIds],
  );
  const subjects = groupBySubject(sums.rows);
  for (const row of earlier.rows) {
    const key = subjectKey(row.server_id, row.component);
    if (!subjects.has(key))
      subjects.set(key, { serverId: row.server_id, component: row.component, rows: [{ start: row.start, sums: {} }] });
  }
  return subjects;
}

/** The rows of one source for one organisation, grouped by subject. */
export async function fetchSourceRows(tx: TenantQueryable, source: AlertSource, query: SourceQuery): Promise<Map<string, SubjectRows>> {
  const { rows } = await tx.query(statements[source], [query.orgId, query.from, query.to, query.serverIds]);
  return groupBySubject(rows);
}

function groupBySubject(rows: readonly Record<string, unknown>[]): Map<string, SubjectRows> {
  const subjects = new Map<string, SubjectRows>();
  for (const row of rows) {
    const serverId = row.server_id as string;
    const component = row.component as string;
    const key = subjectKey(serverId, component);
    let subject = subjects.get(key);
    if (!subject) subjects.set(key, (subject = { serverId, component, rows: [] }));
    const sums: Record<string, number> = {};
    for (const [name, value] of Object.entries(row)) {
      if (name !== "server_id" && name !== "component" && name !== "start") sums[name] = value as number;
    }
    subject.rows.push({ start: row.start as number, sums });
  }
  return subjects;
}

export function subjectKey(serverId: string, component: string): string {
  return `${serverId}\u0000${component}`;
}
