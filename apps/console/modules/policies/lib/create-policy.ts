import { validatePolicyLayer, type PolicyDocument } from "@spindle/policy";
import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { createPolicyInput, type CreatePolicyInput, type PolicyDetail } from "../types/policy";
import { recordAudit } from "./audit";
import { requirePolicyPermission, type PolicyActor } from "./authorise";
import { readPolicy } from "./get-policy";
import { invalidPolicy, isUniqueViolation } from "./problems";

const nameTaken = (name: string) =>
  new ProblemError(
    409,
    "Name taken",
    `A policy named "${name}" already exists in your organisation (archived ones count too); pick another name.`,
  );

/** Creates a policy with its first version (an empty layer unless a document is given). */
export async function createPolicy(db: Db, actor: PolicyActor, rawInput: CreatePolicyInput): Promise<PolicyDetail> {
  requirePolicyPermission(actor, "create");
  const input = createPolicyInput.parse(rawInput);
  const layer = validatePolicyLayer(input.document);
  if (!layer.ok) throw invalidPolicy(layer.problems);

  try {
    return await inOrg(db, actor.orgId, (tx) => createPolicyInTransaction(tx, actor, input, layer.layer));
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name); // a concurrent create with the same name
    throw error;
  }
}

/** The creation itself, inside the caller's transaction (`layer` already validated). */
export async function createPolicyInTransaction(
  tx: OrgTransaction,
  actor: PolicyActor,
  input: { name: string; description: string; comment: string },
  layer: PolicyDocument,
): Promise<PolicyDetail> {
  const taken = await tx.policy.findFirst({
    where: { orgId: actor.orgId, name: { equals: input.name, mode: "insensitive" } },
    select: { id: true },
  });
  if (taken) throw nameTaken(input.name);
  const policy = await tx.policy.create({
    data: { orgId: actor.orgId, name: input.name, description: input.description, createdBy: actor.userId },
  });
  await tx.policyVersion.create({
    data: {
      policyId: policy.id,
      orgId: actor.orgId,
      version: 1,
      document: layer as object,
      comment: input.comment,
      createdBy: actor.userId,
    },
  });
  await recordAudit(tx, actor, "policy.created", policy.id, { name: input.name, version: 1 });
  return readPolicy(tx, actor.orgId, policy.id);
}
