import type { Prisma as PrismaTypes } from "@spindle/db";
import type { PolicyActor } from "./authorise";

/** Audit actions this module writes; the audit log page names them in plain words. */
export type PolicyAuditAction =
  | "policy.created"
  | "policy.version_saved"
  | "policy.updated"
  | "policy.archived"
  | "policy.restored"
  | "policy.assigned"
  | "policy.unassigned"
  | "server.tags_changed";

/** Writes one audit_log row inside the transaction that makes the change, so neither exists alone. */
export async function recordAudit(
  tx: PrismaTypes.TransactionClient,
  actor: PolicyActor,
  action: PolicyAuditAction,
  target: string,
  details: Record<string, PrismaTypes.InputJsonValue | null>,
): Promise<void> {
  await tx.auditLog.create({ data: { orgId: actor.orgId, actorId: actor.userId, action, target, details } });
}
