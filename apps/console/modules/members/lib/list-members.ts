import type { IdentityTables } from "@/lib/db";
import type { MemberView, PendingInvitationView } from "../types/members";

/**
 * Members and invitations are better-auth's identity tables (no org_id, no row-level security):
 * the organisation filter here is the only wall, so it is on every query.
 *
 * The organisation's members (owners first) and its invitations still waiting for an answer. */
export async function listMembers(db: Pick<IdentityTables, "member" | "invitation">, orgId: string, now = new Date()) {
  const [members, invitations] = await Promise.all([
    db.member.findMany({
      where: { organizationId: orgId },
      include: { user: { select: { name: true, email: true } } },
      orderBy: { createdAt: "asc" },
    }),
    db.invitation.findMany({ where: { organizationId: orgId, status: "pending", expiresAt: { gt: now } }, orderBy: { createdAt: "desc" } }),
  ]);
  const roleOrder = ["owner", "admin", "viewer"];
  return {
    members: members
      .map(
        (member): MemberView => ({
          id: member.id,
          userId: member.userId,
          name: member.user.name,
          email: member.user.email,
          role: member.role,
          joinedAt: member.createdAt.toISOString(),
        }),
      )
      .sort((a, b) => roleOrder.indexOf(a.role) - roleOrder.indexOf(b.role)),
    invitations: invitations.map(
      (invitation): PendingInvitationView => ({
        id: invitation.id,
        email: invitation.email,
        role: invitation.role,
        expiresAt: invitation.expiresAt.toISOString(),
      }),
    ),
  };
}
