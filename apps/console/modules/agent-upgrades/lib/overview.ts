// The fleet's agent versions, what the gateways serve, which servers have an upgrade available
// and the upgrades started: the console's Agent upgrades page.
import { compareAgentVersions } from "@spindle/domain";
import { inOrgSql, type Db } from "@/lib/db";
import type { FleetServerVersion, UpgradeOverview } from "../types/agent-upgrades";
import { upgradeCapability } from "./capability";
import { listRollouts } from "./queries";
import { listReleases } from "./releases";
import { upgradeAvailable } from "./upgrade-available";

/** A server is online while its agent was heard from within this window (as on the fleet page). */
const onlineSeconds = 30;

export async function getUpgradeOverview(db: Db, orgId: string, now = new Date()): Promise<UpgradeOverview> {
  return inOrgSql(db, orgId, async (sql) => {
    const releases = await listReleases(sql);
    const latestVersion = releases[0]?.version ?? null;
    const { rows } = await sql.query(
      `SELECT s.id, s.hostname, s.agent_version, s.last_seen_at, a.capabilities, p.version AS pinned, l.target_version AS live_target, l.state AS live_state
       FROM servers s
       LEFT JOIN agents a ON a.org_id = s.org_id AND a.server_id = s.id
       LEFT JOIN agent_version_pins p ON p.org_id = s.org_id AND p.server_id = s.id
       LEFT JOIN agent_upgrades l ON l.org_id = s.org_id AND l.server_id = s.id AND l.state IN ('offered', 'downloading', 'installing')
       WHERE s.org_id = $1 ORDER BY s.hostname, s.id`,
      [orgId],
    );
    const servers: FleetServerVersion[] = rows.map((row) => {
      const agentVersion = row.agent_version as string;
      const lastSeen = row.last_seen_at as Date | null;
      return {
        serverId: row.id,
        hostname: row.hostname,
        agentVersion,
        online: lastSeen !== null && now.getTime() - lastSeen.getTime() <= onlineSeconds * 1000,
        upgradeAvailable: upgradeAvailable(agentVersion, latestVersion, row.pinned ?? null),
        upgrade: upgradeCapability(row.capabilities),
        pinnedVersion: row.pinned ?? null,
        live: row.live_target ? { targetVersion: row.live_target, state: row.live_state } : null,
      };
    });
    const counts = new Map<string, number>();
    for (const s of servers) counts.set(s.agentVersion, (counts.get(s.agentVersion) ?? 0) + 1);
    const versions = [...counts.entries()]
      .map(([version, n]) => ({ version, servers: n }))
      .sort((a, b) => compareAgentVersions(b.version, a.version));
    return { releases, latestVersion, versions, servers, rollouts: await listRollouts(sql, orgId) };
  });
}
