// Aborting a rollout puts the declared state back as it was before the change, slot by slot, so
// that with the rollout over (its held slots no longer apply) every server merges what it merged
// before: an assignment the change made is removed, one it replaced or removed comes back, and a
// policy whose new version it rolled out gets a further version holding the previous document
// (versions are history: a rollback is a new version, as in the editor's "Load into editor").
import type { RolloutSql } from "./sql";

interface Slot {
  scope: "organization" | "tag" | "server";
  tag: string | null;
  server_id: string | null;
  before_policy_id: string | null;
  before_version_id: string | null;
}

interface Current {
  id: string;
  policy_id: string;
}

const where = (slot: Slot) =>
  slot.scope === "organization" ? "the organisation default" : slot.scope === "tag" ? `tag ${slot.tag}` : "a server's own policy";

export async function restoreDeclaredState(
  sql: RolloutSql,
  actor: { orgId: string; userId: string },
  rollout: { id: string; title: string },
): Promise<string[]> {
  const { rows: slots } = await sql.query<Slot>(
    `SELECT scope, tag, server_id::text AS server_id, before_policy_id::text AS before_policy_id, before_version_id::text AS before_version_id
       FROM rollout_slots WHERE org_id = $1 AND rollout_id = $2::uuid ORDER BY id`,
    [actor.orgId, rollout.id],
  );
  const restored: string[] = [];
  const versioned = new Set<string>();
  for (const slot of slots) {
    const {
      rows: [current],
    } = await sql.query<Current>(
      `SELECT id::text AS id, policy_id::text AS policy_id FROM policy_assignments
        WHERE org_id = $1 AND scope = $2 AND tag IS NOT DISTINCT FROM $3 AND server_id IS NOT DISTINCT FROM $4::uuid`,
      [actor.orgId, slot.scope, slot.tag, slot.server_id],
    );
    if (slot.before_policy_id === null) {
      if (current) {
        await sql.query("DELETE FROM policy_assignments WHERE id = $1::uuid", [current.id]);
        await audit(sql, actor, "policy.unassigned", current.policy_id, { target: where(slot), rollout: rollout.title });
        restored.push(`removed the assignment of ${where(slot)}`);
      }
      continue;
    }
    if (current?.policy_id === slot.before_policy_id) {
      if (versioned.has(slot.before_policy_id)) continue;
      versioned.add(slot.before_policy_id);
      const saved = await restoreVersion(sql, actor, slot.before_policy_id, slot.before_version_id!, rollout.title);
      if (saved) restored.push(saved);
      continue;
    }
    if (current) {
      await sql.query("UPDATE policy_assignments SET policy_id = $2::uuid, created_by = $3, created_at = now() WHERE id = $1::uuid", [
        current.id,
        slot.before_policy_id,
        actor.userId,
      ]);
    } else {
      await sql.query(
        "INSERT INTO policy_assignments (org_id, policy_id, scope, tag, server_id, created_by) VALUES ($1, $2::uuid, $3, $4, $5::uuid, $6)",
        [actor.orgId, slot.before_policy_id, slot.scope, slot.tag, slot.server_id, actor.userId],
      );
    }
    await audit(sql, actor, "policy.assigned", slot.before_policy_id, { target: where(slot), rollout: rollout.title });
    restored.push(`assigned the previous policy to ${where(slot)} again`);
  }
  return restored;
}

/** A new version of the policy with the document of the version the rollout started from, unless it is already the latest. */
async function restoreVersion(
  sql: RolloutSql,
  actor: { orgId: string; userId: string },
  policyId: string,
  versionId: string,
  title: string,
): Promise<string | null> {
  const {
    rows: [policy],
  } = await sql.query<{ name: string }>("SELECT name FROM policies WHERE org_id = $1 AND id = $2::uuid FOR UPDATE", [
    actor.orgId,
    policyId,
  ]);
  const {
    rows: [latest],
  } = await sql.query<{ id: string; version: number; document: unknown }>(
    "SELECT id::text AS id, version, document FROM policy_versions WHERE policy_id = $1::uuid ORDER BY version DESC LIMIT 1",
    [policyId],
  );
  const {
    rows: [before],
  } = await sql.query<{ version: number; document: unknown }>(
    "SELECT version, document FROM policy_versions WHERE org_id = $1 AND id = $2::uuid",
    [actor.orgId, versionId],
  );
  if (!policy || !latest || !before || latest.id === versionId) return null;
  const version = latest.version + 1;
  const comment = `Rollout aborted: back to version ${before.version}`;
  await sql.query(
    "INSERT INTO policy_versions (policy_id, org_id, version, document, comment, created_by) VALUES ($1::uuid, $2, $3, $4::jsonb, $5, $6)",
    [policyId, actor.orgId, version, JSON.stringify(before.document), comment, actor.userId],
  );
  await audit(sql, actor, "policy.version_saved", policyId, { name: policy.name, version, comment, rollout: title });
  return `saved version ${version} of “${policy.name}” with the document of version ${before.version}`;
}

async function audit(
  sql: RolloutSql,
  actor: { orgId: string; userId: string },
  action: string,
  target: string,
  details: Record<string, unknown>,
) {
  const {
    rows: [policy],
  } = await sql.query<{ name: string }>("SELECT name FROM policies WHERE org_id = $1 AND id = $2::uuid", [actor.orgId, target]);
  details = { name: policy?.name ?? null, ...details };
  await sql.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, $3, $4, $5::jsonb)", [
    actor.orgId,
    actor.userId,
    action,
    target,
    JSON.stringify(details),
  ]);
}
