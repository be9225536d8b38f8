import { inOrg, type Db } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { recordAudit } from "./audit";
import { requirePolicyPermission, type PolicyActor } from "./authorise";

/** Removes an assignment of the organisation; its servers fall back to the remaining layers. */
export async function removeAssignment(db: Db, actor: PolicyActor, assignmentId: string): Promise<void> {
  requirePolicyPermission(actor, "assign");
  if (!isUuid(assignmentId)) throw notFound("This assignment");
  await inOrg(db, actor.orgId, async (tx) => {
    const assignment = await tx.policyAssignment.findFirst({
      where: { id: assignmentId, orgId: actor.orgId },
      select: { policyId: true, scope: true, tag: true, policy: { select: { name: true } }, server: { select: { hostname: true } } },
    });
    if (!assignment) throw notFound("This assignment");
    await tx.policyAssignment.delete({ where: { id: assignmentId } });
    const target =
      assignment.scope === "organization" ? "the organisation default" : assignment.scope === "tag" ? `tag ${assignment.tag}` : `server ${assignment.server?.hostname}`;
    await recordAudit(tx, actor, "policy.unassigned", assignment.policyId, { name: assignment.policy.name, scope: assignment.scope, target });
  });
}
