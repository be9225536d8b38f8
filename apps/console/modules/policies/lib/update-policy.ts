import { inOrg, type Db } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { updatePolicyInput, type PolicyDetail, type UpdatePolicyInput } from "../types/policy";
import { recordAudit } from "./audit";
import { requirePolicyPermission, type PolicyActor } from "./authorise";
import { readPolicy } from "./get-policy";
import { lockPolicy } from "./lock-policy";

/**
 * Changes a policy's description or archives / restores it. An assigned policy cannot be
 * archived: servers would silently lose a layer, so the user removes the assignments first.
 */
export async function updatePolicy(db: Db, actor: PolicyActor, policyId: string, rawInput: UpdatePolicyInput): Promise<PolicyDetail> {
  requirePolicyPermission(actor, "update");
  const input = updatePolicyInput.parse(rawInput);
  if (!isUuid(policyId)) throw notFound("This policy");
  return inOrg(db, actor.orgId, async (tx) => {
    const policy = await lockPolicy(tx, actor.orgId, policyId);
    if (!policy) throw notFound("This policy");
    const assignments = await tx.policyAssignment.count({ where: { policyId, orgId: actor.orgId } });
    if (input.description !== undefined && input.description !== policy.description) {
      await tx.policy.update({ where: { id: policyId }, data: { description: input.description } });
      await recordAudit(tx, actor, "policy.updated", policyId, { name: policy.name, description: input.description });
    }
    if (input.archived !== undefined && input.archived !== policy.archived) {
      if (input.archived && assignments > 0) {
        throw new ProblemError(
          409,
          "Policy in use",
          `"${policy.name}" is assigned ${assignments === 1 ? "once" : `${assignments} times`}; remove its assignments before archiving it.`,
        );
      }
      await tx.policy.update({ where: { id: policyId }, data: { archivedAt: input.archived ? new Date() : null } });
      await recordAudit(tx, actor, input.archived ? "policy.archived" : "policy.restored", policyId, { name: policy.name });
    }
    return readPolicy(tx, actor.orgId, policyId);
  });
}
