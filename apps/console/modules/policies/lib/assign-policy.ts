import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { createAssignmentInput, type AssignmentSummary, type CreateAssignmentInput } from "../types/policy";
import { recordAudit } from "./audit";
import { requirePolicyPermission, type PolicyActor } from "./authorise";
import { lockPolicy } from "./lock-policy";
import { assignmentSelect, summariseAssignment } from "./summarise-policy";
import { slotAt } from "@/modules/rollouts/lib/slots";
import { sqlOfPrisma } from "@/modules/rollouts/lib/sql";
import { startChange } from "@/modules/rollouts/lib/start-change";
import type { ChangeOutcome } from "@/modules/rollouts/types/rollout";

/**
 * Makes a policy the organisation default, the policy of a tag, or one server's own policy. A
 * target has at most one policy: assigning another replaces it. The policy and the server must
 * belong to the caller's organisation (the database's composite keys refuse it too).
 */
export async function assignPolicy(
  db: Db,
  actor: PolicyActor,
  rawInput: CreateAssignmentInput,
): Promise<{ assignment: AssignmentSummary; delivery: ChangeOutcome }> {
  requirePolicyPermission(actor, "assign");
  const input = createAssignmentInput.parse(rawInput);
  if (!isUuid(input.policyId)) throw notFound("This policy");
  if (input.scope === "server" && !isUuid(input.serverId)) throw notFound("This server");

  return inOrg(db, actor.orgId, async (tx) => {
    const sql = sqlOfPrisma(tx);
    const target = {
      scope: input.scope,
      tag: input.scope === "tag" ? input.tag : null,
      serverId: input.scope === "server" ? input.serverId : null,
    };
    const slot = await slotAt(sql, actor.orgId, target, input.policyId);
    let assignment: AssignmentSummary | undefined;
    const delivery = await startChange(
      sql,
      actor,
      { kind: "assignment", title: "Assignment", policyId: input.policyId, slots: [slot] },
      input.delivery,
      async () => {
        assignment = await assignPolicyInTransaction(tx, actor, input);
        const where =
          input.scope === "organization"
            ? "the organisation default"
            : input.scope === "tag"
              ? `tag ${input.tag}`
              : `server ${assignment.serverHostname ?? ""}`;
        return { title: `Assign “${assignment.policyName}” to ${where}` };
      },
    );
    return { assignment: assignment!, delivery };
  });
}

/** The assignment itself, inside the caller's transaction (input already parsed). */
export async function assignPolicyInTransaction(
  tx: OrgTransaction,
  actor: PolicyActor,
  input: CreateAssignmentInput,
): Promise<AssignmentSummary> {
  const policy = await lockPolicy(tx, actor.orgId, input.policyId);
  if (!policy) throw notFound("This policy");
  if (policy.archived) throw new ProblemError(409, "Policy archived", `"${policy.name}" is archived; restore it before assigning it.`);
  let target = "the organisation default";
  if (input.scope === "server") {
    const server = await tx.server.findFirst({ where: { id: input.serverId, orgId: actor.orgId }, select: { hostname: true } });
    if (!server) throw notFound("This server");
    target = `server ${server.hostname}`;
  } else if (input.scope === "tag") {
    target = `tag ${input.tag}`;
  }

  const where = {
    orgId: actor.orgId,
    scope: input.scope,
    tag: input.scope === "tag" ? input.tag : null,
    serverId: input.scope === "server" ? input.serverId : null,
  };
  const existing = await tx.policyAssignment.findFirst({ where, select: { id: true, policyId: true, policy: { select: { name: true } } } });
  if (existing?.policyId === input.policyId) {
    return summariseAssignment(await tx.policyAssignment.findUniqueOrThrow({ where: { id: existing.id }, select: assignmentSelect }));
  }
  const row = existing
    ? await tx.policyAssignment.update({
        where: { id: existing.id },
        data: { policyId: input.policyId, createdBy: actor.userId, createdAt: new Date() },
        select: assignmentSelect,
      })
    : await tx.policyAssignment.create({ data: { ...where, policyId: input.policyId, createdBy: actor.userId }, select: assignmentSelect });
  await recordAudit(tx, actor, "policy.assigned", input.policyId, {
    name: policy.name,
    scope: input.scope,
    target,
    replaced: existing ? existing.policy.name : null,
  });
  return summariseAssignment(row);
}
