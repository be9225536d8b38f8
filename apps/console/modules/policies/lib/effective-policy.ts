// A server's effective policy: its layers merged with @spindle/policy's inheritance rules, the
// defaults applied, where each value came from, and the hash the gateway sends with it.
import { layersForServer, mergeLayers, type AssignmentScope, type PolicyDocument } from "@spindle/policy";
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

/** The layers that apply to a server of the organisation: each assigned policy's latest version. */
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
  const layers: EffectiveLayer[] = [];
  const targets = assignments.map((a) => ({ ...a, scope: a.scope as AssignmentScope }));
  for (const assignment of layersForServer(server, targets)) {
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

export async function effectivePolicyOfServer(
  tx: OrgTransaction,
  orgId: string,
  server: { id: string; tags: readonly string[] },
): Promise<EffectivePolicy> {
  return computeEffectivePolicy(await loadPolicyLayers(tx, orgId, server));
}
