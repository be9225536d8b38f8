// The slots running rollouts hold at their previous layer, per server (docs/policy.md,
// "Rollouts"): a server not yet released by a rollout (or rolled back) merges the layer the slot
// had before the change. Which servers are held is the database's one definition,
// spindle_rollout_held_slots; this file turns its rows into @spindle/policy's HeldSlot.
import type { HeldSlot } from "@spindle/policy";
import type pg from "pg";
import type { AssignedVersion } from "./effective-policy-layers.js";

interface HeldRow {
  server_id: string;
  scope: AssignedVersion["scope"];
  tag: string | null;
  slot_server_id: string | null;
  before_version_id: string | null;
}

interface VersionRow {
  version_id: string;
  version: number;
  document: Record<string, unknown>;
  policy_id: string;
  policy_name: string;
}

/** Held slots of each server of `serverIds` that a running or paused rollout holds (oldest rollout first). */
export async function loadHeldSlots(
  client: pg.ClientBase,
  orgId: string,
  serverIds: readonly string[],
): Promise<Map<string, HeldSlot<AssignedVersion>[]>> {
  const held = new Map<string, HeldSlot<AssignedVersion>[]>();
  if (serverIds.length === 0) return held;
  const { rows } = await client.query<HeldRow>(
    `SELECT h.server_id::text, h.scope, h.tag, h.slot_server_id::text, h.before_version_id::text
       FROM spindle_rollout_held_slots($1, $2::uuid[]) h
       JOIN rollouts r ON r.id = h.rollout_id
      ORDER BY r.created_at, r.id`,
    [orgId, serverIds],
  );
  if (rows.length === 0) return held;
  const versionIds = [...new Set(rows.flatMap((row) => (row.before_version_id ? [row.before_version_id] : [])))];
  const { rows: versions } = await client.query<VersionRow>(
    `SELECT v.id::text AS version_id, v.version, v.document, p.id::text AS policy_id, p.name AS policy_name
       FROM policy_versions v JOIN policies p ON p.org_id = v.org_id AND p.id = v.policy_id
      WHERE v.org_id = $1 AND v.id = ANY($2::uuid[])`,
    [orgId, versionIds],
  );
  const byId = new Map(versions.map((v) => [v.version_id, v]));
  for (const row of rows) {
    const target = { scope: row.scope, tag: row.tag, serverId: row.slot_server_id };
    const version = row.before_version_id ? byId.get(row.before_version_id) : undefined;
    const previous: AssignedVersion | null = version
      ? {
          ...target,
          policyId: version.policy_id,
          policyName: version.policy_name,
          versionId: version.version_id,
          version: version.version,
          document: version.document,
        }
      : null;
    held.set(row.server_id, [...(held.get(row.server_id) ?? []), { target, previous }]);
  }
  return held;
}
