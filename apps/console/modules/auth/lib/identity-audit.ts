// Account events (sign-ins, failed sign-ins, password resets, MFA changes) belong to a user, not
// to one organisation; the audit log is per organisation. Each is recorded in every organisation
// the user belongs to, so each organisation's owners see what happened to their members' accounts.
import { inOrg, type Db, type IdentityTables } from "@/lib/db";

export interface AccountEvent {
  actorId: string | null;
  action: string;
  target: string;
  details: Record<string, string | number | boolean | null>;
}

export async function auditAccountEvent(db: Db, identity: IdentityTables, userId: string, event: AccountEvent): Promise<void> {
  const memberships = await identity.member.findMany({ where: { userId }, select: { organizationId: true } });
  for (const { organizationId } of memberships) await auditInOrganisation(db, organizationId, event);
}

export async function auditInOrganisation(db: Db, orgId: string, event: AccountEvent): Promise<void> {
  await inOrg(db, orgId, (tx) =>
    tx.auditLog.create({ data: { orgId, actorId: event.actorId, action: event.action, target: event.target, details: event.details } }),
  );
}
