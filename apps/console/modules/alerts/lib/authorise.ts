import type { Prisma as PrismaTypes } from "@spindle/db";
import { forbidden } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";

/** Who is changing alerting: every operation is scoped to `orgId` and checks `role` itself. */
export type AlertActor = Pick<OrgContext, "orgId" | "userId" | "role">;

type Permission =
  | { alertRule: ("create" | "update" | "delete")[] }
  | { alertSilence: ("create" | "cancel")[] }
  | { alert: "acknowledge"[] };

/** The routes check the same permission; checking here keeps an operation safe whoever calls it. */
export function requireAlertPermission(actor: AlertActor, permission: Permission): void {
  if (!can(actor.role, permission)) {
    throw forbidden(
      `Your role (${actor.role}) can see alerts but not change rules or silences or acknowledge alerts; ask an owner or admin.`,
    );
  }
}

export type AlertAuditAction =
  | "alert_rule.created"
  | "alert_rule.updated"
  | "alert_rule.enabled"
  | "alert_rule.disabled"
  | "alert_rule.deleted"
  | "alert_silence.created"
  | "alert_silence.cancelled"
  | "alert.acknowledged";

/** One audit_log row inside the transaction that makes the change, so neither exists alone. */
export async function recordAlertAudit(
  tx: PrismaTypes.TransactionClient,
  actor: AlertActor,
  action: AlertAuditAction,
  target: string,
  details: Record<string, PrismaTypes.InputJsonValue | null>,
): Promise<void> {
  await tx.auditLog.create({ data: { orgId: actor.orgId, actorId: actor.userId, action, target, details } });
}
