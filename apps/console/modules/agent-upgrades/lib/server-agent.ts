// One server's agent version for its page: what it runs, whether a newer release is served,
// whether it can replace itself (and how to upgrade it otherwise), its pin and its attempts.
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { ServerAgentVersion } from "../types/agent-upgrades";
import { upgradeCapability } from "./capability";
import { attemptColumns, toAttempt } from "./queries";
import { listReleases } from "./releases";
import { upgradeAvailable } from "./upgrade-available";

export async function getServerAgentVersion(db: Db, orgId: string, serverId: string): Promise<ServerAgentVersion> {
  if (!isUuid(serverId)) throw notFound("This server");
  return inOrgSql(db, orgId, (sql) => getServerAgentVersionIn(sql, orgId, serverId));
}

export async function getServerAgentVersionIn(sql: OrgSql, orgId: string, serverId: string): Promise<ServerAgentVersion> {
  const { rows } = await sql.query(
    `SELECT s.id, s.hostname, s.agent_version, a.capabilities, p.version AS pin_version, p.reason AS pin_reason, p.pinned_at,
            (SELECT u.name FROM users u WHERE u.id = p.pinned_by) AS pinned_by
     FROM servers s
     LEFT JOIN agents a ON a.org_id = s.org_id AND a.server_id = s.id
     LEFT JOIN agent_version_pins p ON p.org_id = s.org_id AND p.server_id = s.id
     WHERE s.org_id = $1 AND s.id = $2`,
    [orgId, serverId],
  );
  const row = rows[0];
  if (!row) throw notFound("This server");
  const releases = await listReleases(sql);
  const latestVersion = releases[0]?.version ?? null;
  const attempts = (
    await sql.query(
      `SELECT ${attemptColumns} FROM agent_upgrades u JOIN servers s ON s.org_id = u.org_id AND s.id = u.server_id
     WHERE u.org_id = $1 AND u.server_id = $2 ORDER BY u.created_at DESC LIMIT 10`,
      [orgId, serverId],
    )
  ).rows.map(toAttempt);
  return {
    serverId: row.id,
    hostname: row.hostname,
    agentVersion: row.agent_version,
    latestVersion,
    upgradeAvailable: upgradeAvailable(row.agent_version, latestVersion, row.pin_version ?? null),
    upgrade: upgradeCapability(row.capabilities),
    pin: row.pin_version
      ? {
          version: row.pin_version,
          reason: row.pin_reason,
          pinnedBy: row.pinned_by ?? null,
          pinnedAt: (row.pinned_at as Date).toISOString(),
        }
      : null,
    attempts,
    releases: releases.map((r) => r.version),
  };
}
