// An owner or admin signs a member out: every session of that person ends at once (sessions are
// per person, so this signs them out of every organisation). Only an owner may sign out an owner.
// Their API tokens are not touched: revoke those in Settings → API tokens.
import { database, identityTables, inOrg, type Db } from "@/lib/db";
import { forbidden, notFound } from "@/lib/problem";
import type { OrgContext } from "@/modules/auth/types/context";

export async function signOutMember(db: Db, context: OrgContext, memberId: string): Promise<{ signedOutSessions: number }> {
  const identity = identityTables(database());
  const member = await identity.member.findFirst({
    where: { id: memberId, organizationId: context.orgId },
    include: { user: { select: { email: true } } },
  });
  if (!member) throw notFound("This member");
  if (member.role === "owner" && context.role !== "owner") throw forbidden("Only an owner can sign out an owner.");
  const { count } = await identity.session.deleteMany({ where: { userId: member.userId } });
  await inOrg(db, context.orgId, (tx) =>
    tx.auditLog.create({
      data: {
        orgId: context.orgId,
        actorId: context.userId,
        action: "member.signed_out",
        target: member.id,
        details: { email: member.user.email, sessions: count },
      },
    }),
  );
  return { signedOutSessions: count };
}
