import type { Prisma as PrismaTypes } from "@spindle/db";
import { forbidden } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";

/** Who acts on a recommendation: every operation is scoped to `orgId` and checks `role` itself. */
export type RecommendationActor = Pick<OrgContext, "orgId" | "userId" | "role">;

export function requireRecommendationPermission(actor: RecommendationActor, action: "apply" | "dismiss"): void {
  if (!can(actor.role, { recommendation: [action] })) {
    throw forbidden(`Your role (${actor.role}) can read recommendations but not act on them; ask an owner or admin.`);
  }
}

export type RecommendationAuditAction =
  | "recommendation.applied"
  | "recommendation.dismissed"
  | "recommendation.snoozed"
  | "recommendation.reopened";

/** One audit_log row in the transaction that changes the recommendation. */
export async function recordRecommendationAudit(
  tx: PrismaTypes.TransactionClient,
  actor: RecommendationActor,
  action: RecommendationAuditAction,
  target: string,
  details: Record<string, PrismaTypes.InputJsonValue | null>,
): Promise<void> {
  await tx.auditLog.create({ data: { orgId: actor.orgId, actorId: actor.userId, action, target, details } });
}
