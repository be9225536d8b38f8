import { capabilityCatalogue } from "@spindle/domain";
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import type { FleetGroup, FleetPage, FleetRow } from "../types/fleet";
import type { FleetFilter, FleetPolicyState, FleetQuery } from "../types/fleet-query";
import { fleetCte, fleetGroupsSql, fleetPageSql, fleetWhere, type FleetGroupRow, type FleetSqlRow } from "./fleet-sql";
import { p99ReadLatency, readHistograms, serverP99ReadLatency, SUMMARY_STALE_AFTER_MS } from "./fleet-latency";
import { causedReadCacheGains } from "./group-gains";
import { summariseServer } from "./summarise-server";

/**
 * One page of the fleet for the query, with the total that matches and, when grouped by tag,
 * every group's counts and headline figures. In one transaction under the organisation's
 * row-level security; every statement also filters on org_id itself.
 */
export async function queryFleet(db: Db, orgId: string, query: FleetQuery, now = new Date()): Promise<FleetPage> {
  return inOrgSql(db, orgId, (sql) => readFleet(sql, orgId, query, now));
}

export async function readFleet(sql: OrgSql, orgId: string, query: FleetQuery, now: Date): Promise<FleetPage> {
  const filter = filterOnly(query);
  const page = fleetPageSql(filter, query.sort, query.dir, query.pageSize, (query.page - 1) * query.pageSize);
  const { rows } = await sql.query<FleetSqlRow>(page.text, [orgId, now, ...page.params]);
  // count(*) OVER () has no row to ride on past the last page: count apart only then.
  const total = rows[0] ? Number(rows[0].total) : await countMatching(sql, orgId, filter, now);
  const fleetSize = Object.keys(filter).length === 0 ? total : await countMatching(sql, orgId, {}, now);
  const groupRows = query.group === "tag" ? await readGroupRows(sql, orgId, filter, now) : null;
  const histograms = await readHistograms(
    sql,
    orgId,
    rows.map((row) => row.id),
  );
  return {
    servers: rows.map((row) => toFleetRow(row, now, serverP99ReadLatency(histograms.get(row.id), now))),
    total,
    page: query.page,
    pageSize: query.pageSize,
    groups:
      groupRows?.map(
        (group): FleetGroup => ({
          tag: group.tag,
          servers: group.servers,
          online: group.online,
          firing: group.firing,
          p99ReadLatency: p99ReadLatency(
            group.measured > 0 && group.reads !== null && group.windowStart && group.windowEnd
              ? {
                  servers: group.measured,
                  reads: group.reads,
                  buckets: group.buckets.map((count) => count ?? 0),
                  windowStart: group.windowStart,
                  windowEnd: group.windowEnd,
                }
              : null,
            { servers: group.stale, end: group.staleEnd },
          ),
          causedReadCacheGains: causedReadCacheGains(group.tag),
        }),
      ) ?? null,
    fleetSize,
    at: now.toISOString(),
  };
}

function filterOnly(query: FleetQuery): FleetFilter {
  const { sort: _sort, dir: _dir, page: _page, pageSize: _pageSize, group: _group, ...filter } = query;
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined && value !== "")) as FleetFilter;
}

async function countMatching(sql: OrgSql, orgId: string, filter: FleetFilter, now: Date): Promise<number> {
  const where = fleetWhere(filter, 3);
  const { rows } = await sql.query<{ n: number }>(`WITH ${fleetCte} SELECT count(*)::int AS n FROM fleet ${where.text}`, [
    orgId,
    now,
    ...where.params,
  ]);
  return rows[0]?.n ?? 0;
}

async function readGroupRows(sql: OrgSql, orgId: string, filter: FleetFilter, now: Date): Promise<FleetGroupRow[]> {
  const groups = fleetGroupsSql(filter);
  const currentFrom = new Date(now.getTime() - SUMMARY_STALE_AFTER_MS);
  return (await sql.query<FleetGroupRow>(groups.text, [orgId, now, currentFrom, ...groups.params])).rows;
}

const catalogueNames = capabilityCatalogue.map((capability) => capability.name);

function toFleetRow(row: FleetSqlRow, now: Date, p99: FleetRow["p99ReadLatency"]): FleetRow {
  const summary = summariseServer(
    {
      id: row.id,
      hostname: row.hostname,
      os: row.os,
      osVersion: row.osVersion,
      kernel: row.kernel,
      arch: row.arch,
      agentVersion: row.agentVersion,
      createdAt: row.createdAt,
      lastSeenAt: row.lastSeenAt,
    },
    now,
  );
  const reported = new Set(row.capabilities ?? []);
  return {
    ...summary,
    osName: row.osName,
    tags: row.tags,
    firing: row.firing,
    firingSeverity: row.firingCritical > 0 ? "critical" : row.firingWarning > 0 ? "warning" : row.firing > 0 ? "info" : null,
    policyState: row.policyState as FleetPolicyState,
    revoked: row.revoked,
    missingCapabilities: row.capabilitiesReported ? catalogueNames.filter((name) => !reported.has(name)) : null,
    p99ReadLatency: p99,
  };
}
