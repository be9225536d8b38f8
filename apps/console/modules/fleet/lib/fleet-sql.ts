// The fleet in SQL: one row per server with everything the filters and sort keys need (status
// from last_seen_at, firing alerts by severity, the policy state the server page would show,
// the agent's capabilities), then the filters as bind parameters. Filtering, sorting and paging
// all happen in the database, so a page of 50 out of 10,000 servers moves 50 rows.
import { ONLINE_WITHIN_SECONDS } from "./server-status";
import type { FleetFilter, FleetSortKey } from "../types/fleet-query";

/** A piece of SQL and the values of its placeholders, numbered after the ones before it. */
export interface SqlWithParams {
  text: string;
  params: unknown[];
}

/**
 * One row per server of the organisation ($1) as of $2 (now). The policy state follows
 * describePolicyStatus (modules/policies/lib/policy-status.ts) on the effective policy the
 * worker materialised: invalid when the merge failed, applied when the agent applied that
 * hash, failed when it refused that policy, otherwise pending.
 */
export const fleetCte = `firing AS (
  SELECT st.server_id, count(*)::int AS alerts,
    count(*) FILTER (WHERE r.severity = 'critical')::int AS critical,
    count(*) FILTER (WHERE r.severity = 'warning')::int AS warning,
    count(*) FILTER (WHERE r.severity = 'info')::int AS info
  FROM alert_states st
  JOIN alert_rules r ON r.id = st.rule_id AND r.org_id = st.org_id AND r.enabled
  WHERE st.org_id = $1 AND st.state = 'firing'
  GROUP BY st.server_id
), fleet AS (
  SELECT s.id, s.hostname, s.os, s.os_version, COALESCE(NULLIF(s.os_version, ''), s.os) AS os_name, s.kernel, s.arch,
    s.agent_version, s.tags, s.created_at, s.last_seen_at,
    CASE WHEN s.last_seen_at IS NULL THEN 'waiting'
         WHEN s.last_seen_at >= $2::timestamptz - interval '${ONLINE_WITHIN_SECONDS} seconds' THEN 'online'
         ELSE 'offline' END AS status,
    COALESCE(f.alerts, 0) AS firing, COALESCE(f.critical, 0) AS firing_critical,
    COALESCE(f.warning, 0) AS firing_warning, COALESCE(f.info, 0) AS firing_info,
    CASE WHEN ep.error IS NOT NULL THEN 'invalid'
         WHEN ps.status = 'applied' AND ep.hash IS NOT NULL AND ps.applied_hash = ep.hash THEN 'applied'
         WHEN ps.status = 'failed' AND (ps.desired_version_hash IS NULL OR ps.desired_version_hash = ep.hash) THEN 'failed'
         ELSE 'pending' END AS policy_state,
    a.revoked_at IS NOT NULL AS revoked,
    a.telemetry_capabilities AS capabilities, a.telemetry_capabilities_at IS NOT NULL AS capabilities_reported
  FROM servers s
  LEFT JOIN agents a ON a.server_id = s.id AND a.org_id = s.org_id
  LEFT JOIN server_policy_status ps ON ps.server_id = s.id AND ps.org_id = s.org_id
  LEFT JOIN server_effective_policies ep ON ep.server_id = s.id AND ep.org_id = s.org_id
  LEFT JOIN firing f ON f.server_id = s.id
  WHERE s.org_id = $1
)`;

/** `%` and `_` in a search are characters, not wildcards. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The WHERE clause of the filters over `fleet`, its placeholders numbered from `first`. */
export function fleetWhere(filter: FleetFilter, first: number): SqlWithParams {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  if (filter.q) {
    const pattern = param(likePattern(filter.q));
    clauses.push(`(hostname ILIKE ${pattern} OR array_to_string(tags, ' ') ILIKE ${pattern})`);
  }
  if (filter.status) clauses.push(`status = ${param(filter.status)}`);
  if (filter.tag) clauses.push(`${param(filter.tag)} = ANY(tags)`);
  if (filter.untagged) clauses.push("cardinality(tags) = 0");
  if (filter.os) clauses.push(`os_name = ${param(filter.os)}`);
  if (filter.kernel) clauses.push(`kernel = ${param(filter.kernel)}`);
  if (filter.agent) clauses.push(`agent_version = ${param(filter.agent)}`);
  if (filter.missing) clauses.push(`capabilities_reported AND NOT (${param(filter.missing)} = ANY(capabilities))`);
  if (filter.alert === "firing") clauses.push("firing > 0");
  else if (filter.alert === "none") clauses.push("firing = 0");
  else if (filter.alert) clauses.push(`firing_${filter.alert} > 0`);
  if (filter.policy) clauses.push(`policy_state = ${param(filter.policy)}`);
  return { text: clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

const natural = "COLLATE public.spindle_natural";

/**
 * ORDER BY for a sort key, then hostname and id so that pages never overlap or skip a server.
 * Ranked keys put what needs attention at one end: status online, offline, waiting; policy
 * failed, invalid, pending, applied; firing by critical, then warning, then any alert.
 */
export function fleetOrderBy(sort: FleetSortKey, dir: "asc" | "desc"): string {
  const direction = dir === "desc" ? "DESC" : "ASC";
  const key: Record<FleetSortKey, string> = {
    hostname: `hostname ${natural} ${direction}`,
    status: `CASE status WHEN 'online' THEN 0 WHEN 'offline' THEN 1 ELSE 2 END ${direction}`,
    os: `os_name ${natural} ${direction}`,
    kernel: `kernel ${natural} ${direction}`,
    agentVersion: `agent_version ${natural} ${direction}`,
    lastSeen: `last_seen_at ${direction} NULLS LAST`,
    firing: `firing_critical ${direction}, firing_warning ${direction}, firing ${direction}`,
    policy: `CASE policy_state WHEN 'failed' THEN 0 WHEN 'invalid' THEN 1 WHEN 'pending' THEN 2 ELSE 3 END ${direction}`,
  };
  return sort === "hostname" ? `ORDER BY ${key.hostname}, id` : `ORDER BY ${key[sort]}, hostname ${natural}, id`;
}

/** The row a page query answers; `total` is the count of every matching row. */
export type FleetSqlRow = {
  id: string;
  hostname: string;
  os: string;
  osVersion: string;
  osName: string;
  kernel: string;
  arch: string;
  agentVersion: string;
  tags: string[];
  createdAt: Date;
  lastSeenAt: Date | null;
  firing: number;
  firingCritical: number;
  firingWarning: number;
  policyState: string;
  revoked: boolean;
  capabilities: string[] | null;
  capabilitiesReported: boolean | null;
  total: string;
};

/** One page of matching servers with the total count, in one statement. */
export function fleetPageSql(
  filter: FleetFilter,
  sort: FleetSortKey,
  dir: "asc" | "desc",
  pageSize: number,
  offset: number,
): SqlWithParams {
  const where = fleetWhere(filter, 3);
  const limit = 3 + where.params.length;
  return {
    text: `WITH ${fleetCte}
SELECT id::text AS id, hostname, os, os_version AS "osVersion", os_name AS "osName", kernel, arch, agent_version AS "agentVersion",
  tags, created_at AS "createdAt", last_seen_at AS "lastSeenAt", firing, firing_critical AS "firingCritical", firing_warning AS "firingWarning",
  policy_state AS "policyState", revoked, capabilities, capabilities_reported AS "capabilitiesReported", count(*) OVER () AS total
FROM fleet
${where.text}
${fleetOrderBy(sort, dir)}
LIMIT $${limit} OFFSET $${limit + 1}`,
    params: [...where.params, pageSize, offset],
  };
}

/** The ids of every matching server (what a bulk action on "all matching" acts on), at most `limit`. */
export function fleetIdsSql(filter: FleetFilter, limit: number): SqlWithParams {
  const where = fleetWhere(filter, 3);
  return {
    text: `WITH ${fleetCte}
SELECT id::text AS id FROM fleet ${where.text} ORDER BY id LIMIT $${3 + where.params.length}`,
    params: [...where.params, limit],
  };
}

/** A group's row: its counts, and its servers' current read latency summaries merged (sums per bucket). */
export type FleetGroupRow = {
  tag: string | null;
  servers: number;
  online: number;
  firing: number;
  /** Servers with a current summary (its window ends at $3 or later), their reads and bucket sums. */
  measured: number;
  reads: number | null;
  buckets: (number | null)[];
  windowStart: Date | null;
  windowEnd: Date | null;
  /** Servers whose summary is older than that (the worker stopped), and the newest such end. */
  stale: number;
  staleEnd: Date | null;
};

const summedBuckets = Array.from({ length: 28 }, (_, i) => `sum(buckets[${i + 1}]) FILTER (WHERE current)`).join(", ");

/**
 * Per tag (NULL: untagged) over the matching servers: how many, online, with a firing alert, and
 * their read latency summaries (server_read_latency) added bucket by bucket in the database, so
 * a 10,000-server fleet's groups come back as a few rows, not as every server's histogram.
 * $3 is the oldest window end still current; the filters' placeholders follow.
 */
export function fleetGroupsSql(filter: FleetFilter): SqlWithParams {
  const where = fleetWhere(filter, 4);
  return {
    text: `WITH ${fleetCte}, matched AS (SELECT * FROM fleet ${where.text}),
tagged AS (
  SELECT m.id, m.status, m.firing, tag FROM matched m
  CROSS JOIN LATERAL unnest(CASE WHEN cardinality(m.tags) = 0 THEN ARRAY[NULL::text] ELSE m.tags END) AS tag
), summarised AS (
  SELECT t.*, l.buckets, l.reads, l.window_start, l.window_end, l.window_end >= $3 AS current
  FROM tagged t LEFT JOIN server_read_latency l ON l.server_id = t.id AND l.org_id = $1
)
SELECT tag, count(*)::int AS servers, count(*) FILTER (WHERE status = 'online')::int AS online,
  count(*) FILTER (WHERE firing > 0)::int AS firing,
  count(*) FILTER (WHERE current)::int AS measured, sum(reads) FILTER (WHERE current) AS reads, ARRAY[${summedBuckets}] AS buckets,
  min(window_start) FILTER (WHERE current) AS "windowStart", max(window_end) FILTER (WHERE current) AS "windowEnd",
  count(*) FILTER (WHERE NOT current)::int AS stale, max(window_end) FILTER (WHERE NOT current) AS "staleEnd"
FROM summarised
GROUP BY tag
ORDER BY tag ${natural} NULLS LAST`,
    params: where.params,
  };
}
