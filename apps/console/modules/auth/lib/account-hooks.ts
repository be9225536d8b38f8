// better-auth's database hooks for accounts: an address verified at creation when the sign-up
// proves it (an e-mailed invitation link, single sign-on) or when this install has no mail
// server and this is its first account (the operator's own); each new session's landing
// organisation and sign-in method; MFA turned on or off audited and announced by mail.
import type { BetterAuthOptions } from "better-auth";
import type { Db, IdentityTables } from "@/lib/db";
import { env } from "@/lib/env";
import { mfaChangedMessage } from "@/modules/mail/lib/messages";
import { deliverLater, mailer } from "@/modules/mail/lib/mailer";
import { auditAccountEvent } from "./identity-audit";
import { checkInvitationProof, INVITATION_PROOF_HEADER, parseProofHeader } from "./invitation-proof";
import { signInMethodFor } from "./sign-in-method";

type Hooks = NonNullable<BetterAuthOptions["databaseHooks"]>;
type EndpointContext = Parameters<NonNullable<NonNullable<NonNullable<Hooks["user"]>["create"]>["before"]>>[1];

async function invitedThroughMail(identity: IdentityTables, email: string, context: EndpointContext): Promise<boolean> {
  const header = parseProofHeader(context?.headers?.get(INVITATION_PROOF_HEADER) ?? context?.request?.headers.get(INVITATION_PROOF_HEADER));
  if (!header) return false;
  const invitation = await identity.invitation.findUnique({
    where: { id: header.invitationId },
    select: { email: true, status: true, expiresAt: true },
  });
  return (
    Boolean(invitation) &&
    invitation!.status === "pending" &&
    invitation!.expiresAt > new Date() &&
    invitation!.email.toLowerCase() === email.toLowerCase() &&
    checkInvitationProof(env().BETTER_AUTH_SECRET, header.invitationId, email, header.proof)
  );
}

async function verifiedAtCreation(identity: IdentityTables, email: string, context: EndpointContext): Promise<boolean> {
  // The identity provider vouched for the address, and resolve-sso-user.ts checked its domain.
  if (context?.path === "/sso/callback/:providerId") return true;
  if (context?.path !== "/sign-up/email") return false;
  if (await invitedThroughMail(identity, email, context)) return true;
  // Without a mail server nobody could read a verification mail but the operator; the first
  // account of such an install is the operator's own.
  return mailer().isLocalMailbox && (await identity.user.count()) === 0;
}

export function accountDatabaseHooks(db: Db, identity: IdentityTables): Hooks {
  return {
    user: {
      create: {
        before: async (user, context) =>
          (await verifiedAtCreation(identity, user.email, context)) ? { data: { ...user, emailVerified: true } } : undefined,
      },
      update: {
        after: async (user, context) => {
          const enabled = context?.path === "/two-factor/verify-totp" && user.twoFactorEnabled === true;
          const disabled = context?.path === "/two-factor/disable" && user.twoFactorEnabled === false;
          if (!enabled && !disabled) return;
          await auditAccountEvent(db, identity, user.id, {
            actorId: user.id,
            action: enabled ? "auth.mfa_enabled" : "auth.mfa_disabled",
            target: user.id,
            details: { email: user.email },
          });
          deliverLater(mfaChangedMessage(user.email, user.name, enabled, `${env().SPINDLE_CONSOLE_URL}/account/security`));
        },
      },
    },
    session: {
      create: {
        // Land every new session in the user's oldest organisation, so signing in goes straight
        // to the fleet instead of an organisation picker; a re-issued session keeps its own.
        before: async (session, context) => {
          const existing = session as typeof session & { activeOrganizationId?: string | null; signInMethod?: string | null };
          const membership = existing.activeOrganizationId
            ? null
            : await identity.member.findFirst({
                where: { userId: session.userId },
                orderBy: { createdAt: "asc" },
                select: { organizationId: true },
              });
          const method = existing.signInMethod ?? signInMethodFor(context?.path, context?.params as Record<string, unknown> | undefined);
          return {
            data: {
              ...session,
              activeOrganizationId: existing.activeOrganizationId ?? membership?.organizationId ?? null,
              signInMethod: method,
            },
          };
        },
      },
    },
  };
}
