import { inOrg, type Db, type OrgSql, type OrgTransaction } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { ServerSummary } from "../types/server";
import { serverSummarySelect, summariseServer } from "./summarise-server";

/**
 * One server of the organisation. A server of another organisation is "not found", exactly like
 * one that does not exist, so ids never leak across tenants.
 */
export async function getServer(db: Db, orgId: string, serverId: string, now = new Date()): Promise<ServerSummary> {
  return inOrg(db, orgId, (tx) => readServer(tx, orgId, serverId, now));
}

/** getServer inside a unit of work that is already open. */
export async function readServer(tx: OrgTransaction, orgId: string, serverId: string, now = new Date()): Promise<ServerSummary> {
  const row = isUuid(serverId) ? await tx.server.findFirst({ where: { id: serverId, orgId }, select: serverSummarySelect }) : null;
  if (!row) throw notFound("This server");
  return summariseServer(row, now);
}

type ServerRow = Parameters<typeof summariseServer>[0];

/** The columns of serverSummarySelect in SQL, for units of work that read telemetry in SQL. */
const serverSummaryColumns = `id::text AS id, hostname, os, os_version AS "osVersion", kernel, arch,
  agent_version AS "agentVersion", created_at AS "createdAt", last_seen_at AS "lastSeenAt"`;

/** readServer for a unit of work in SQL (metrics, deep telemetry, gains): one transaction throughout. */
export async function readServerSql(sql: OrgSql, orgId: string, serverId: string, now = new Date()): Promise<ServerSummary> {
  const { rows } = isUuid(serverId)
    ? await sql.query<ServerRow>(`SELECT ${serverSummaryColumns} FROM servers WHERE id = $1 AND org_id = $2`, [serverId, orgId])
    : { rows: [] };
  if (!rows[0]) throw notFound("This server");
  return summariseServer(rows[0], now);
}

/** Every server of the organisation in SQL, by hostname. */
export async function listServersSql(sql: OrgSql, orgId: string, now = new Date()): Promise<ServerSummary[]> {
  const { rows } = await sql.query<ServerRow>(
    `SELECT ${serverSummaryColumns} FROM servers WHERE org_id = $1 ORDER BY hostname, created_at`,
    [orgId],
  );
  return rows.map((row) => summariseServer(row, now));
}
