// Member, invitation and role changes go to the audit log with the user who made them (issue 11,
// defect 10). better-auth's organisation plugin performs them; these are its after-hooks. The
// plugin passes the inviter, canceller and accepting user, but not who added, removed or
// re-roled a member: that is the signed-in user of the request, which better-auth keeps in the
// endpoint context for the duration of the handler that calls these hooks.
import { tryGetCurrentAuthEndpointContext } from "@better-auth/core/context";
import { inOrg, type Db } from "@/lib/db";

interface Named {
  id: string;
  email?: string | null;
}
interface MemberLike {
  id: string;
  role: string;
  userId: string;
  organizationId: string;
}
interface InvitationLike {
  id: string;
  email: string;
  role?: string | null;
  organizationId: string;
}

/**
 * The signed-in user of the request being handled, or null when there is none (a server-side
 * call without a session, which the console does not make for member changes).
 */
export function requestActorId(): string | null {
  const session = tryGetCurrentAuthEndpointContext()?.context.session as { user?: { id?: unknown } } | null | undefined;
  return typeof session?.user?.id === "string" ? session.user.id : null;
}

async function record(db: Db, orgId: string, actorId: string | null, action: string, target: string, details: Record<string, string>) {
  await inOrg(db, orgId, (tx) => tx.auditLog.create({ data: { orgId, actorId, action, target, details } }));
}

export function memberAuditHooks(db: Db) {
  return {
    afterAddMember: async ({ member, user }: { member: MemberLike; user: Named }) =>
      record(db, member.organizationId, requestActorId(), "member.added", member.id, { email: user.email ?? "", role: member.role }),
    afterRemoveMember: async ({ member, user }: { member: MemberLike; user: Named }) =>
      record(db, member.organizationId, requestActorId(), "member.removed", member.id, { email: user.email ?? "", role: member.role }),
    afterUpdateMemberRole: async ({ member, user, previousRole }: { member: MemberLike; user: Named; previousRole: string }) =>
      record(db, member.organizationId, requestActorId(), "member.role_changed", member.id, {
        email: user.email ?? "",
        from: previousRole,
        role: member.role,
      }),
    afterCreateInvitation: async ({ invitation, inviter }: { invitation: InvitationLike; inviter: Named }) =>
      record(db, invitation.organizationId, inviter.id, "invitation.created", invitation.id, {
        email: invitation.email,
        role: invitation.role ?? "",
      }),
    afterCancelInvitation: async ({ invitation, cancelledBy }: { invitation: InvitationLike; cancelledBy: Named }) =>
      record(db, invitation.organizationId, cancelledBy.id, "invitation.cancelled", invitation.id, { email: invitation.email }),
    afterAcceptInvitation: async ({ invitation, member, user }: { invitation: InvitationLike; member: MemberLike; user: Named }) =>
      record(db, invitation.organizationId, user.id, "invitation.accepted", invitation.id, { email: invitation.email, role: member.role }),
  };
}
