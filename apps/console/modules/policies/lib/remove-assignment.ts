import { inOrg, type Db } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { slotAt } from "@/modules/rollouts/lib/slots";
import { sqlOfPrisma } from "@/modules/rollouts/lib/sql";
import { startChange } from "@/modules/rollouts/lib/start-change";
import type { ChangeOutcome } from "@/modules/rollouts/types/rollout";
import { removeAssignmentInput, type AssignmentScope, type RemoveAssignmentInput } from "../types/policy";
import { recordAudit } from "./audit";
import { requirePolicyPermission, type PolicyActor } from "./authorise";

/**
 * Removes an assignment of the organisation; its servers fall back to the remaining layers. An
 * organisation- or tag-wide removal is a change like any other: by default a rollout.
 */
export async function removeAssignment(
  db: Db,
  actor: PolicyActor,
  assignmentId: string,
  rawInput: RemoveAssignmentInput = {},
): Promise<ChangeOutcome> {
  requirePolicyPermission(actor, "assign");
  const input = removeAssignmentInput.parse(rawInput);
  if (!isUuid(assignmentId)) throw notFound("This assignment");
  return inOrg(db, actor.orgId, async (tx) => {
    const assignment = await tx.policyAssignment.findFirst({
      where: { id: assignmentId, orgId: actor.orgId },
      select: {
        policyId: true,
        scope: true,
        tag: true,
        serverId: true,
        policy: { select: { name: true } },
        server: { select: { hostname: true } },
      },
    });
    if (!assignment) throw notFound("This assignment");
    const target =
      assignment.scope === "organization"
        ? "the organisation default"
        : assignment.scope === "tag"
          ? `tag ${assignment.tag}`
          : `server ${assignment.server?.hostname}`;
    const sql = sqlOfPrisma(tx);
    const slot = await slotAt(
      sql,
      actor.orgId,
      { scope: assignment.scope as AssignmentScope, tag: assignment.tag, serverId: assignment.serverId },
      null,
    );
    return startChange(
      sql,
      actor,
      { kind: "assignment", title: `Remove “${assignment.policy.name}” from ${target}`, policyId: assignment.policyId, slots: [slot] },
      input.delivery,
      async () => {
        await tx.policyAssignment.delete({ where: { id: assignmentId } });
        await recordAudit(tx, actor, "policy.unassigned", assignment.policyId, {
          name: assignment.policy.name,
          scope: assignment.scope,
          target,
        });
      },
    );
  });
}
