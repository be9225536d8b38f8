import type { IdentityTables } from "@/lib/db";

export type InvitationView =
  | { state: "open"; id: string; email: string; role: string; organizationName: string; inviterName: string }
  | { state: "closed"; reason: string };

/**
 * What the invitation page shows. The invitation id is the secret of the link, so anyone holding
 * it may see which organisation invites which address.
 */
export async function findInvitation(db: Pick<IdentityTables, "invitation">, id: string, now = new Date()): Promise<InvitationView> {
  const invitation = await db.invitation.findUnique({
    where: { id },
    include: { organization: { select: { name: true } }, inviter: { select: { name: true } } },
  });
  if (!invitation) return { state: "closed", reason: "This invitation link is not valid. Ask for a new one." };
  if (invitation.status !== "pending")
    return { state: "closed", reason: `This invitation was already ${invitation.status}. Sign in, or ask for a new one.` };
  if (invitation.expiresAt <= now) return { state: "closed", reason: "This invitation has expired. Ask for a new one." };
  return {
    state: "open",
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    organizationName: invitation.organization.name,
    inviterName: invitation.inviter.name,
  };
}
