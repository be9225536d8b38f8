// Pin a server to an agent version: every rollout leaves it out, and when it runs another version
// (older or newer: a pin is also how one server goes back) the version is offered to it at once.
// Removing the pin withdraws that offer if the agent has not started on it.
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { forbidden, notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { can } from "@/modules/auth/lib/access";
import type { ServerAgentVersion } from "../types/agent-upgrades";
import { upgradeCapability } from "./capability";
import { listReleases, servesPlatform } from "./releases";
import { getServerAgentVersionIn } from "./server-agent";
import type { UpgradeActor } from "./start-upgrade";

function requirePin(actor: UpgradeActor) {
  if (!can(actor.role, { agentUpgrade: ["pin"] })) {
    throw forbidden(`Your role (${actor.role}) can see agent versions but not pin them; ask an owner or admin.`);
  }
}

async function lockServer(sql: OrgSql, orgId: string, serverId: string) {
  if (!isUuid(serverId)) throw notFound("This server");
  const { rows } = await sql.query(
    `SELECT s.id, s.hostname, s.agent_version, s.os, s.arch, a.capabilities FROM servers s
     LEFT JOIN agents a ON a.org_id = s.org_id AND a.server_id = s.id WHERE s.org_id = $1 AND s.id = $2 FOR UPDATE OF s`,
    [orgId, serverId],
  );
  if (!rows[0]) throw notFound("This server");
  return rows[0];
}

export async function pinAgentVersion(
  db: Db,
  actor: UpgradeActor,
  serverId: string,
  input: { version: string; reason: string },
): Promise<{ server: ServerAgentVersion; note: string | null }> {
  requirePin(actor);
  return inOrgSql(db, actor.orgId, async (sql) => {
    const server = await lockServer(sql, actor.orgId, serverId);
    const release = (await listReleases(sql)).find((r) => r.version === input.version);
    if (!release)
      throw new ProblemError(
        400,
        "Version not served",
        `No gateway serves agent ${input.version}; pin one of the releases the gateways serve.`,
      );
    const started = await sql.query(
      "SELECT target_version, state FROM agent_upgrades WHERE org_id = $1 AND server_id = $2 AND state IN ('downloading', 'installing')",
      [actor.orgId, serverId],
    );
    if (started.rows[0]) {
      throw new ProblemError(
        409,
        "An upgrade is in progress",
        `${server.hostname} is ${started.rows[0].state} ${started.rows[0].target_version}; pin it once that is done.`,
      );
    }
    await sql.query(
      `UPDATE agent_upgrades SET state = 'cancelled', message = $3, finished_at = now()
       WHERE org_id = $1 AND server_id = $2 AND state IN ('waiting', 'offered')`,
      [actor.orgId, serverId, `pinned to ${input.version}`],
    );
    await sql.query(
      `INSERT INTO agent_version_pins (org_id, server_id, version, reason, pinned_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, server_id) DO UPDATE SET version = EXCLUDED.version, reason = EXCLUDED.reason, pinned_by = EXCLUDED.pinned_by, pinned_at = now()`,
      [actor.orgId, serverId, input.version, input.reason, actor.userId],
    );
    let note: string | null = null;
    const capability = upgradeCapability(server.capabilities);
    if (server.agent_version !== input.version) {
      if (!capability?.remote) {
        note = `${server.hostname} is pinned, but its agent cannot replace itself (${capability?.reason || "it is too old to take upgrades over OpAMP"}): install ${input.version} there yourself.`;
      } else if (!servesPlatform(release, server.os, server.arch)) {
        note = `${server.hostname} is pinned, but no gateway serves ${input.version} for ${server.os}/${server.arch}.`;
      } else {
        await sql.query(
          `INSERT INTO agent_upgrades (org_id, server_id, target_version, from_version, state, offered_at) VALUES ($1, $2, $3, $4, 'offered', now())`,
          [actor.orgId, serverId, input.version, server.agent_version],
        );
      }
    }
    await sql.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, 'agent_version.pinned', $3, $4)", [
      actor.orgId,
      actor.userId,
      serverId,
      JSON.stringify({ hostname: server.hostname, version: input.version, reason: input.reason, running: server.agent_version }),
    ]);
    return { server: await getServerAgentVersionIn(sql, actor.orgId, serverId), note };
  });
}

export async function unpinAgentVersion(db: Db, actor: UpgradeActor, serverId: string): Promise<ServerAgentVersion> {
  requirePin(actor);
  return inOrgSql(db, actor.orgId, async (sql) => {
    const server = await lockServer(sql, actor.orgId, serverId);
    const removed = await sql.query("DELETE FROM agent_version_pins WHERE org_id = $1 AND server_id = $2 RETURNING version", [
      actor.orgId,
      serverId,
    ]);
    if (!removed.rows[0]) throw new ProblemError(409, "Not pinned", `${server.hostname} is not pinned to a version.`);
    await sql.query(
      `UPDATE agent_upgrades SET state = 'cancelled', message = 'the pin was removed', finished_at = now()
       WHERE org_id = $1 AND server_id = $2 AND rollout_id IS NULL AND state = 'offered'`,
      [actor.orgId, serverId],
    );
    await sql.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, 'agent_version.unpinned', $3, $4)", [
      actor.orgId,
      actor.userId,
      serverId,
      JSON.stringify({ hostname: server.hostname, version: removed.rows[0].version }),
    ]);
    return getServerAgentVersionIn(sql, actor.orgId, serverId);
  });
}
