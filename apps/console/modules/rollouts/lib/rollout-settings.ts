// The organisation's rollout setting (docs/policy.md, "Rollouts"): on by default, every
// organisation- or tag-wide change (or one reaching several servers) goes out as a rollout unless
// an owner or admin applies it at once. Only owners switch it, and the switch is audited.
import { forbidden } from "@/lib/problem";
import { inOrg, type Db } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";
import { sqlOfPrisma, type RolloutSql } from "./sql";

export async function readRolloutsRequired(sql: RolloutSql, orgId: string): Promise<boolean> {
  const { rows } = await sql.query<{ rollouts_required: boolean }>("SELECT rollouts_required FROM org_rollout_settings WHERE org_id = $1", [
    orgId,
  ]);
  return rows[0]?.rollouts_required ?? true;
}

export async function getRolloutSettings(db: Db, orgId: string): Promise<{ rolloutsRequired: boolean }> {
  return inOrg(db, orgId, async (tx) => ({ rolloutsRequired: await readRolloutsRequired(sqlOfPrisma(tx), orgId) }));
}

export async function setRolloutSettings(
  db: Db,
  actor: Pick<OrgContext, "orgId" | "userId" | "role">,
  rolloutsRequired: boolean,
): Promise<{ rolloutsRequired: boolean }> {
  if (!can(actor.role, { rollout: ["settings"] })) {
    throw forbidden(`Only owners change whether changes go out as rollouts; your role is ${actor.role}.`);
  }
  return inOrg(db, actor.orgId, async (tx) => {
    const sql = sqlOfPrisma(tx);
    const before = await readRolloutsRequired(sql, actor.orgId);
    if (before === rolloutsRequired) return { rolloutsRequired };
    await sql.query(
      `INSERT INTO org_rollout_settings (org_id, rollouts_required, updated_by, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (org_id) DO UPDATE SET rollouts_required = EXCLUDED.rollouts_required, updated_by = EXCLUDED.updated_by, updated_at = now()`,
      [actor.orgId, rolloutsRequired, actor.userId],
    );
    await sql.query(
      "INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, 'rollout.settings_changed', '', $3::jsonb)",
      [actor.orgId, actor.userId, JSON.stringify({ rolloutsRequired, before })],
    );
    return { rolloutsRequired };
  });
}
