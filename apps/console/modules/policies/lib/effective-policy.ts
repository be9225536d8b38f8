// A server's effective policy: its layers merged with @spindle/policy's inheritance rules, the
// defaults applied, where each value came from, and the hash the gateway sends with it.
import {
  assignmentsDuringRollouts,
  layersForServer,
  mergeLayers,
  type AssignmentScope,
  type HeldSlot,
  type PolicyDocument,
} from "@spindle/policy";
import { policyHash } from "@spindle/policy/hash";
import type { OrgTransaction } from "@/lib/db";
import type { EffectiveLayer, EffectivePolicy } from "../types/policy";
import { fieldSources } from "./field-sources";

/**
 * Merges the layers in the order given (organisation default, tags in tag-name order, server)
 * and validates the result with every cross-field rule. No layers: the schema's defaults.
 */
export function computeEffectivePolicy(layers: readonly EffectiveLayer[]): EffectivePolicy {
  const { merged, result: parsed } = mergeLayers(layers.map((layer) => layer.document as PolicyDocument));
  const copied = layers.map((layer) => ({ ...layer }));
  if (!parsed.ok) return { ok: false, layers: copied, fields: fieldSources(merged, layers), problems: parsed.problems };
  return { ok: true, layers: copied, fields: fieldSources(parsed.policy, layers), policy: parsed.policy, hash: policyHash(parsed.policy) };
}

interface AssignedLayer {
  scope: AssignmentScope;
  tag: string | null;
  serverId: string | null;
  policy: { id: string; name: string; versions: { version: number; document: unknown }[] };
}

/**
 * The layers that apply to a server of the organisation: each assigned policy's latest version,
 * except at the slots a running rollout has not released to this server yet, where the layer the
 * slot had before the change applies (docs/policy.md, "Rollouts"); the worker materialises the same.
 */
export async function loadPolicyLayers(
  tx: OrgTransaction,
  orgId: string,
  server: { id: string; tags: readonly string[] },
): Promise<EffectiveLayer[]> {
  const assignments = await tx.policyAssignment.findMany({
    where: {
      orgId,
      OR: [{ scope: "organization" }, { scope: "tag", tag: { in: [...server.tags] } }, { scope: "server", serverId: server.id }],
    },
    select: {
      scope: true,
      tag: true,
      serverId: true,
      policy: {
        select: { id: true, name: true, versions: { orderBy: { version: "desc" }, take: 1, select: { version: true, document: true } } },
      },
    },
  });
  const targets: AssignedLayer[] = assignments.map((a) => ({ ...a, scope: a.scope as AssignmentScope }));
  const held = await loadHeldSlots(tx, orgId, server.id);
  const layers: EffectiveLayer[] = [];
  for (const assignment of layersForServer(server, assignmentsDuringRollouts(targets, held))) {
    const latest = assignment.policy.versions[0];
    if (!latest) continue; // every policy is created with version 1; a policy without one has nothing to say
    layers.push({
      source: {
        scope: assignment.scope,
        tag: assignment.tag,
        policyId: assignment.policy.id,
        policyName: assignment.policy.name,
        version: latest.version,
      },
      document: latest.document as Record<string, unknown>,
    });
  }
  return layers;
}

/** The slots running rollouts hold at their previous layer for this server (spindle_rollout_held_slots). */
async function loadHeldSlots(tx: OrgTransaction, orgId: string, serverId: string): Promise<HeldSlot<AssignedLayer>[]> {
  const rows = await tx.$queryRaw<
    {
      scope: AssignmentScope;
      tag: string | null;
      slot_server_id: string | null;
      policy_id: string | null;
      policy_name: string | null;
      version: number | null;
      document: unknown;
    }[]
  >`
    SELECT h.scope, h.tag, h.slot_server_id::text, p.id::text AS policy_id, p.name AS policy_name, v.version, v.document
    FROM spindle_rollout_held_slots(${orgId}, ARRAY[${serverId}::uuid]) h
    JOIN rollouts r ON r.id = h.rollout_id
    LEFT JOIN policy_versions v ON v.org_id = ${orgId} AND v.id = h.before_version_id
    LEFT JOIN policies p ON p.org_id = v.org_id AND p.id = v.policy_id
    ORDER BY r.created_at, r.id`;
  return rows.map((row) => {
    const target = { scope: row.scope, tag: row.tag, serverId: row.slot_server_id };
    const previous =
      row.policy_id && row.policy_name && row.version !== null
        ? { ...target, policy: { id: row.policy_id, name: row.policy_name, versions: [{ version: row.version, document: row.document }] } }
        : null;
    return { target, previous };
  });
}

export async function effectivePolicyOfServer(
  tx: OrgTransaction,
  orgId: string,
  server: { id: string; tags: readonly string[] },
): Promise<EffectivePolicy> {
  return computeEffectivePolicy(await loadPolicyLayers(tx, orgId, server));
}
