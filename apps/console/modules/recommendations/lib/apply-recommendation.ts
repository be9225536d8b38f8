// Apply: the recommended change saved as a new version of the server's own policy, through the
// policies module's own operations (validated, audited, announced to the gateways at commit,
// pushed to the agent over OpAMP, which confirms or refuses it in server_policy_status). A
// server without a policy of its own gets one, "<hostname> (recommendations)", assigned to it.
// The version, the assignment, the recommendation's new status and their audit rows commit
// together or not at all.
import { applyPolicyChange, describePolicyChange, policyChangeSchema, type PolicyChange } from "@spindle/domain";
import { validatePolicyLayer, type PolicyDocument } from "@spindle/policy";
import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { assignPolicyInTransaction } from "@/modules/policies/lib/assign-policy";
import { createPolicyInTransaction } from "@/modules/policies/lib/create-policy";
import { computeEffectivePolicy, loadPolicyLayers } from "@/modules/policies/lib/effective-policy";
import { invalidPolicy } from "@/modules/policies/lib/problems";
import { saveVersionInTransaction } from "@/modules/policies/lib/save-policy-version";
import { slotAt } from "@/modules/rollouts/lib/slots";
import { sqlOfPrisma } from "@/modules/rollouts/lib/sql";
import { startChange } from "@/modules/rollouts/lib/start-change";
import type { Delivery } from "@/modules/rollouts/types/rollout";
import type { RecommendationView } from "../types/recommendation";
import { recordRecommendationAudit, requireRecommendationPermission, type RecommendationActor } from "./authorise";
import { readRecommendation } from "./list-recommendations";

/**
 * Waits for the organisation's recommendations refresh (apps/worker/src/recommendations/refresh.ts
 * takes the same lock) and locks the row. Without it a refresh that read the open findings before
 * this commit would raise the finding again as a new open row beside the applied one.
 */
async function lockRecommendation(tx: OrgTransaction, orgId: string, id: string) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('spindle.recommendations'), hashtext(${orgId}))`;
  const rows = await tx.$queryRaw<{ status: string }[]>`
    SELECT status FROM recommendations WHERE id = ${id}::uuid AND org_id = ${orgId} FOR UPDATE`;
  return rows[0] ?? null;
}

/**
 * `delivery` as for any policy change: a one-server change goes out at once unless a rollout is
 * asked for, which guards it (its server against the servers not changed) and rolls it back on
 * a regression.
 */
export async function applyRecommendation(
  db: Db,
  actor: RecommendationActor,
  id: string,
  now = new Date(),
  delivery?: Delivery,
): Promise<RecommendationView> {
  requireRecommendationPermission(actor, "apply");
  if (!isUuid(id)) throw notFound("This recommendation");
  return inOrg(db, actor.orgId, async (tx) => {
    const locked = await lockRecommendation(tx, actor.orgId, id);
    if (!locked) throw notFound("This recommendation");
    if (locked.status === "applied")
      throw new ProblemError(409, "Already applied", "This recommendation was applied already; its policy version is linked on it.");
    const row = await tx.recommendation.findFirstOrThrow({ where: { orgId: actor.orgId, id } });
    if (row.change === null) {
      throw new ProblemError(409, "Not a policy change", `No policy can make this change; do it on the server: ${row.steps}`);
    }
    const change = policyChangeSchema.parse(row.change);
    const server = await tx.server.findFirst({
      where: { orgId: actor.orgId, id: row.serverId },
      select: { id: true, hostname: true, tags: true },
    });
    if (!server) throw notFound("This recommendation's server");

    const sql = sqlOfPrisma(tx);
    const slot = await slotAt(sql, actor.orgId, { scope: "server", tag: null, serverId: server.id }, null);
    let saved: { policyId: string; version: number } | undefined;
    await startChange(
      sql,
      actor,
      { kind: "recommendation", title: `Recommendation on ${server.hostname}: ${row.title}`, recommendationId: id, slots: [slot] },
      delivery,
      async () => {
        saved = await saveOnServerLayer(
          tx,
          actor,
          server,
          change,
          `Recommendation: ${row.title} (${describePolicyChange(change)})`.slice(0, 500),
        );
        return { policyId: saved.policyId, policyVersion: saved.version, slots: [{ ...slot, afterPolicyId: saved.policyId }] };
      },
    );
    if (!saved) throw new Error("the recommendation's change was not saved");
    await tx.recommendation.update({
      where: { id },
      data: {
        status: "applied",
        snoozedUntil: null,
        appliedAt: now,
        appliedPolicyId: saved.policyId,
        appliedPolicyVersion: saved.version,
        statusChangedBy: actor.userId,
        statusChangedAt: now,
      },
    });
    await recordRecommendationAudit(tx, actor, "recommendation.applied", id, {
      title: row.title,
      server: server.hostname,
      change: describePolicyChange(change),
      policyId: saved.policyId,
      version: saved.version,
    });
    return (await readRecommendation(tx, actor.orgId, id))!;
  });
}

async function saveOnServerLayer(
  tx: OrgTransaction,
  actor: RecommendationActor,
  server: { id: string; hostname: string; tags: string[] },
  change: PolicyChange,
  comment: string,
): Promise<{ policyId: string; version: number }> {
  const layers = await loadPolicyLayers(tx, actor.orgId, server);
  const effective = computeEffectivePolicy(layers);
  if (!effective.ok) {
    throw new ProblemError(
      409,
      "Server policy invalid",
      "This server's layers already merge into an invalid policy; fix it on the Policies page before applying.",
    );
  }
  const own = layers.find((layer) => layer.source.scope === "server");
  const document = applyPolicyChange(own?.document ?? { schemaVersion: 1 }, change, effective.policy as unknown as Record<string, unknown>);
  const layer = validatePolicyLayer(document);
  if (!layer.ok) throw invalidPolicy(layer.problems);
  // The layer alone can be valid while the merged policy is not (a budget below the scan threshold).
  const merged = computeEffectivePolicy([
    ...layers.filter((l) => l.source.scope !== "server"),
    { source: own?.source ?? newServerSource(), document },
  ]);
  if (!merged.ok) throw invalidPolicy(merged.problems);

  if (own) {
    const version = await saveVersionInTransaction(tx, actor, own.source.policyId, layer.layer as PolicyDocument, {
      comment,
      basedOnVersion: own.source.version,
    });
    return { policyId: own.source.policyId, version: version.version };
  }
  const created = await createPolicyInTransaction(
    tx,
    actor,
    {
      name: `${server.hostname} (recommendations)`.slice(0, 100),
      description: `${server.hostname}'s own policy layer, created by applying a recommendation.`,
      comment,
    },
    layer.layer,
  );
  await assignPolicyInTransaction(tx, actor, { scope: "server", serverId: server.id, policyId: created.id });
  return { policyId: created.id, version: 1 };
}

/** The source of a server layer that does not exist yet (only used to merge for validation). */
function newServerSource() {
  return { scope: "server" as const, tag: null, policyId: "", policyName: "", version: 0 };
}
