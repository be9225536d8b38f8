import { validatePolicyLayer, type PolicyDocument } from "@spindle/policy";
import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { saveVersionInput, type PolicyVersionSummary, type SaveVersionInput } from "../types/policy";
import { recordAudit } from "./audit";
import { requirePolicyPermission, type PolicyActor } from "./authorise";
import { lockPolicy } from "./lock-policy";
import { diffPolicyDocuments } from "./policy-diff";
import { invalidPolicy } from "./problems";
import { findAuthors, summariseVersion } from "./summarise-policy";
import { slotsOfPolicy } from "@/modules/rollouts/lib/slots";
import { sqlOfPrisma } from "@/modules/rollouts/lib/sql";
import { startChange } from "@/modules/rollouts/lib/start-change";
import type { ChangeOutcome } from "@/modules/rollouts/types/rollout";

/**
 * Saves a document as the policy's next version (versions never change). The policy row is
 * locked while the number is taken, so two saves get 2 and 3, never 2 twice. Saving on top of a
 * version other than the one the editor started from is refused, so nobody overwrites a
 * colleague's change unseen. The database announces the version to the gateways at commit.
 */
export async function savePolicyVersion(
  db: Db,
  actor: PolicyActor,
  policyId: string,
  rawInput: SaveVersionInput,
): Promise<{ version: PolicyVersionSummary; delivery: ChangeOutcome }> {
  requirePolicyPermission(actor, "update");
  const input = saveVersionInput.parse(rawInput);
  if (!isUuid(policyId)) throw notFound("This policy");
  const layer = validatePolicyLayer(input.document);
  if (!layer.ok) throw invalidPolicy(layer.problems);

  return inOrg(db, actor.orgId, async (tx) => {
    const sql = sqlOfPrisma(tx);
    let saved: PolicyVersionSummary | undefined;
    // A new version changes every slot the policy is assigned at: it goes out as one change.
    const slots = await slotsOfPolicy(sql, actor.orgId, policyId);
    const delivery = await startChange(
      sql,
      actor,
      { kind: "policy_version", title: "Policy version", policyId, slots },
      input.delivery,
      async () => {
        saved = await saveVersionInTransaction(tx, actor, policyId, layer.layer, input);
        const { name } = await tx.policy.findFirstOrThrow({ where: { id: policyId, orgId: actor.orgId }, select: { name: true } });
        return { title: `Policy “${name}” version ${saved.version}`, policyVersion: saved.version };
      },
    );
    return { version: saved!, delivery };
  });
}

/**
 * The save itself, inside the caller's transaction (`layer` already validated): Apply on a
 * recommendation saves its version this way, in the transaction that marks it applied.
 */
export async function saveVersionInTransaction(
  tx: OrgTransaction,
  actor: PolicyActor,
  policyId: string,
  layer: PolicyDocument,
  input: { comment: string; basedOnVersion?: number },
): Promise<PolicyVersionSummary> {
  const policy = await lockPolicy(tx, actor.orgId, policyId);
  if (!policy) throw notFound("This policy");
  if (policy.archived)
    throw new ProblemError(409, "Policy archived", `"${policy.name}" is archived; restore it before saving a new version.`);
  const latest = await tx.policyVersion.findFirst({ where: { policyId }, orderBy: { version: "desc" } });
  const latestVersion = latest?.version ?? 0;
  if (input.basedOnVersion !== undefined && input.basedOnVersion !== latestVersion) {
    throw new ProblemError(
      409,
      "Policy changed meanwhile",
      `Version ${latestVersion} was saved after you opened version ${input.basedOnVersion}; reload to see it, then apply your change again.`,
    );
  }
  if (latest && diffPolicyDocuments(latest.document, layer).length === 0) {
    throw new ProblemError(409, "Nothing changed", `This is exactly version ${latestVersion}; change a field before saving.`);
  }
  const created = await tx.policyVersion.create({
    data: {
      policyId,
      orgId: actor.orgId,
      version: latestVersion + 1,
      document: layer as object,
      comment: input.comment,
      createdBy: actor.userId,
    },
  });
  await recordAudit(tx, actor, "policy.version_saved", policyId, { name: policy.name, version: created.version, comment: input.comment });
  return summariseVersion(created, await findAuthors(tx, [created.createdBy]));
}
