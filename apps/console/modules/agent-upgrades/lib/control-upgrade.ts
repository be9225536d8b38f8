// Pause, resume or cancel an agent upgrade, or override a wave's hold. Resume goes on past the
// failures that paused it (marked acknowledged) and past a guard that tripped (the person takes
// the regression on), or offers the version again to the servers that failed (retry: a new
// attempt, which their agents take as a new offer). Cancel withdraws every offer not taken yet;
// an agent already downloading or installing finishes what it started. Override lets a wave whose
// guards lack data go on (the worker would otherwise hold it until the data is there), with why.
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { forbidden, notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { can } from "@/modules/auth/lib/access";
import type { RolloutSummary } from "../types/agent-upgrades";
import { listRolloutById } from "./get-rollout";
import type { UpgradeActor } from "./start-upgrade";

export type ControlAction = "pause" | "resume" | "cancel" | "override";

const pastTense: Record<ControlAction, string> = { pause: "paused", resume: "resumed", cancel: "cancelled", override: "overridden" };

export async function controlUpgrade(
  db: Db,
  actor: UpgradeActor,
  rolloutId: string,
  action: ControlAction,
  options: { retryFailed?: boolean; reason?: string } = {},
): Promise<RolloutSummary> {
  if (!can(actor.role, { agentUpgrade: ["control"] })) {
    throw forbidden(`Your role (${actor.role}) can follow agent upgrades but not ${action} them; ask an owner or admin.`);
  }
  if (!isUuid(rolloutId)) throw notFound("This upgrade");
  const reason = (options.reason ?? "").trim();
  if (action === "override" && (reason.length === 0 || reason.length > 500)) {
    throw new ProblemError(
      400,
      "Invalid request",
      "Say why the wave may go on without its guards' data (1–500 characters); it is kept in the audit log.",
    );
  }
  return inOrgSql(db, actor.orgId, async (sql) => {
    const { rows } = await sql.query(
      "SELECT id, status, target_version, current_wave FROM agent_upgrade_rollouts WHERE org_id = $1 AND id = $2 FOR UPDATE",
      [actor.orgId, rolloutId],
    );
    const rollout = rows[0];
    if (!rollout) throw notFound("This upgrade");
    const allowed: Record<ControlAction, string[]> = {
      pause: ["running"],
      resume: ["paused"],
      cancel: ["running", "paused"],
      override: ["running"],
    };
    if (!allowed[action].includes(rollout.status)) {
      throw new ProblemError(409, "Not possible now", `This upgrade is ${rollout.status}; it cannot be ${pastTense[action]}.`);
    }
    let details: Record<string, unknown> = { version: rollout.target_version };
    if (action === "pause") {
      await sql.query(
        "UPDATE agent_upgrade_rollouts SET status = 'paused', status_reason = 'paused by a person', updated_at = now() WHERE org_id = $1 AND id = $2",
        [actor.orgId, rolloutId],
      );
    } else if (action === "resume") {
      details = { ...details, ...(await resume(sql, actor, rolloutId, rollout.current_wave, options.retryFailed === true)) };
    } else if (action === "override") {
      const held = await sql.query(
        `UPDATE agent_upgrade_waves SET overridden_by = $4, overridden_at = now()
         WHERE org_id = $1 AND rollout_id = $2 AND wave = $3 AND verdict = 'hold' AND overridden_at IS NULL RETURNING reason`,
        [actor.orgId, rolloutId, rollout.current_wave, actor.userId],
      );
      if (held.rows.length === 0) {
        throw new ProblemError(
          409,
          "Not possible now",
          "This upgrade's current wave is not holding for want of data: there is no hold to override.",
        );
      }
      details = { ...details, wave: rollout.current_wave, reason, held: held.rows[0].reason };
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
      `agent_upgrade.${action === "cancel" ? "cancelled" : action === "pause" ? "paused_by_user" : action === "override" ? "guard_overridden" : "resumed"}`,
      rolloutId,
      JSON.stringify(details),
    ]);
    return listRolloutById(sql, actor.orgId, rolloutId);
  });
}

async function resume(sql: OrgSql, actor: UpgradeActor, rolloutId: string, wave: number, retry: boolean): Promise<Record<string, unknown>> {
  const orgId = actor.orgId;
  // A guard that tripped paused it: resuming takes the regression on, so the wave is not judged again.
  const tripped = await sql.query(
    `UPDATE agent_upgrade_waves SET overridden_by = $4, overridden_at = now()
     WHERE org_id = $1 AND rollout_id = $2 AND wave = $3 AND verdict = 'trip' AND overridden_at IS NULL RETURNING wave`,
    [orgId, rolloutId, wave, actor.userId],
  );
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
  return { acknowledged: failed.rows.length, retried, ...(tripped.rows.length > 0 ? { guardOverridden: true } : {}) };
}
