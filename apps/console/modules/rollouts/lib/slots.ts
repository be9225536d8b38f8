// The slots a change touches, read before it is made: where a policy is assigned (a new version
// of it changes all of them), or one target (an assignment made or removed).
import type { AssignmentScope } from "@spindle/policy";
import type { SlotChange } from "./start-change";
import type { RolloutSql } from "./sql";

interface SlotRow {
  scope: AssignmentScope;
  tag: string | null;
  server_id: string | null;
  policy_id: string;
  version_id: string;
}

const current = `SELECT a.scope, a.tag, a.server_id::text AS server_id, a.policy_id::text AS policy_id, v.id::text AS version_id
  FROM policy_assignments a
  JOIN LATERAL (SELECT id FROM policy_versions WHERE policy_id = a.policy_id ORDER BY version DESC LIMIT 1) v ON true
  WHERE a.org_id = $1`;

/** Every slot a policy is assigned at, each held before at the policy's latest version. */
export async function slotsOfPolicy(sql: RolloutSql, orgId: string, policyId: string): Promise<SlotChange[]> {
  const { rows } = await sql.query<SlotRow>(`${current} AND a.policy_id = $2::uuid ORDER BY a.scope, a.tag, a.server_id`, [
    orgId,
    policyId,
  ]);
  return rows.map((row) => ({
    scope: row.scope,
    tag: row.tag,
    serverId: row.server_id,
    before: { policyId: row.policy_id, versionId: row.version_id },
    afterPolicyId: policyId,
  }));
}

/** One target's slot as it stands, and the policy it will hold after the change (null: removed). */
export async function slotAt(
  sql: RolloutSql,
  orgId: string,
  target: { scope: AssignmentScope; tag: string | null; serverId: string | null },
  afterPolicyId: string | null,
): Promise<SlotChange> {
  const { rows } = await sql.query<SlotRow>(
    `${current} AND a.scope = $2 AND a.tag IS NOT DISTINCT FROM $3 AND a.server_id IS NOT DISTINCT FROM $4::uuid`,
    [orgId, target.scope, target.tag, target.serverId],
  );
  const row = rows[0];
  return { ...target, before: row ? { policyId: row.policy_id, versionId: row.version_id } : null, afterPolicyId };
}

/** The own-policy slots of many servers (the fleet page's bulk assignment), one query. */
export async function serverSlots(
  sql: RolloutSql,
  orgId: string,
  serverIds: readonly string[],
  afterPolicyId: string,
): Promise<SlotChange[]> {
  const { rows } = await sql.query<SlotRow>(`${current} AND a.scope = 'server' AND a.server_id = ANY($2::uuid[])`, [orgId, serverIds]);
  const byServer = new Map(rows.map((row) => [row.server_id!, row]));
  return serverIds.map((serverId) => {
    const row = byServer.get(serverId);
    return {
      scope: "server" as const,
      tag: null,
      serverId,
      before: row ? { policyId: row.policy_id, versionId: row.version_id } : null,
      afterPolicyId,
    };
  });
}
