// Pause, resume or cancel an agent upgrade. Resume goes on past the failures that paused it
// (marked acknowledged), or offers the version again to the servers that failed (retry: a new
// attempt, which their agents take as a new offer). Cancel withdraws every offer not taken yet;
// an agent already downloading or installing finishes what it started.
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { forbidden, notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { can } from "@/modules/auth/lib/access";
import type { RolloutSummary } from "../types/agent-upgrades";
import { listRolloutById } from "./get-rollout";
import type { UpgradeActor } from "./start-upgrade";

export type ControlAction = "pause" | "resume" | "cancel";

export async function controlUpgrade(
  db: Db,
  actor: UpgradeActor,
  rolloutId: string,
  action: ControlAction,
  options: { retryFailed?: boolean } = {},
): Promise<RolloutSummary> {
  if (!can(actor.role, { agentUpgrade: ["control"] })) {
    throw forbidden(`Your role (${actor.role}) can follow agent upgrades but not ${action} them; ask an owner or admin.`);
  }
  if (!isUuid(rolloutId)) throw notFound("This upgrade");
  return inOrgSql(db, actor.orgId, async (sql) => {
    const { rows } = await sql.query(
      "SELECT id, status, target_version, current_wave FROM agent_upgrade_rollouts WHERE org_id = $1 AND id = $2 FOR UPDATE",
      [actor.orgId, rolloutId],
    );
    const rollout = rows[0];
    if (!rollout) throw notFound("This upgrade");
    const allowed: Record<ControlAction, string[]> = { pause: ["running"], resume: ["paused"], cancel: ["running", "paused"] };
    if (!allowed[action].includes(rollout.status)) {
      throw new ProblemError(
        409,
        "Not possible now",
        `This upgrade is ${rollout.status}; it cannot be ${action === "pause" ? "paused" : action === "resume" ? "resumed" : "cancelled"}.`,
      );
    }
    let details: Record<string, unknown> = { version: rollout.target_version };
    if (action === "pause") {
      await sql.query(
        "UPDATE agent_upgrade_rollouts SET status = 'paused', status_reason = 'paused by a person', updated_at = now() WHERE org_id = $1 AND id = $2",
        [actor.orgId, rolloutId],
      );
    } else if (action === "resume") {
      details = { ...details, ...(await resume(sql, actor.orgId, rolloutId, rollout.current_wave, options.retryFailed === true)) };
    } else {
      const withdrawn = await sql.query(
        `UPDATE agent_upgrades SET state = 'cancelled', message = 'the upgrade was cancelled', finished_at = now()
         WHERE org_id = $1 AND rollout_id = $2 AND state IN ('waiting', 'offered') RETURNING id`,
        [actor.orgId, rolloutId],
      );
      await sql.query(
        "UPDATE agent_upgrade_rollouts SET status = 'cancelled', status_reason = 'cancelled by a person', finished_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2",
        [actor.orgId, rolloutId],
      );
      details = { ...details, withdrawn: withdrawn.rows.length };
    }
    await sql.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, $3, $4, $5)", [
      actor.orgId,
      actor.userId,
      `agent_upgrade.${action === "cancel" ? "cancelled" : action === "pause" ? "paused_by_user" : "resumed"}`,
      rolloutId,
      JSON.stringify(details),
    ]);
    return listRolloutById(sql, actor.orgId, rolloutId);
  });
}

async function resume(sql: OrgSql, orgId: string, rolloutId: string, wave: number, retry: boolean): Promise<Record<string, unknown>> {
  const failed = await sql.query(
    `UPDATE agent_upgrades SET acknowledged_at = now()
     WHERE org_id = $1 AND rollout_id = $2 AND wave = $3 AND state IN ('failed', 'rolled_back') AND acknowledged_at IS NULL
     RETURNING server_id`,
    [orgId, rolloutId, wave],
  );
  let retried = 0;
  if (retry) {
    const again = await sql.query(
      `INSERT INTO agent_upgrades (org_id, server_id, rollout_id, wave, target_version, from_version, state, offered_at)
       SELECT u.org_id, u.server_id, u.rollout_id, u.wave, u.target_version, s.agent_version, 'offered', now()
       FROM agent_upgrades u JOIN servers s ON s.org_id = u.org_id AND s.id = u.server_id
       WHERE u.org_id = $1 AND u.rollout_id = $2 AND u.server_id = ANY($3::uuid[]) AND u.wave = $4 AND u.state IN ('failed', 'rolled_back')
         AND NOT EXISTS (SELECT 1 FROM agent_upgrades l WHERE l.org_id = u.org_id AND l.server_id = u.server_id AND l.state IN ('offered', 'downloading', 'installing'))
       RETURNING id`,
      [orgId, rolloutId, failed.rows.map((r) => r.server_id), wave],
    );
    retried = again.rows.length;
  }
  // Waiting again for the wave to install: its soak restarts once every server of it is done.
  await sql.query(
    "UPDATE agent_upgrade_rollouts SET status = 'running', status_reason = '', wave_installed_at = NULL, updated_at = now() WHERE org_id = $1 AND id = $2",
    [orgId, rolloutId],
  );
  return { acknowledged: failed.rows.length, retried };
}
