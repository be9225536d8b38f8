// A better-auth plugin of our own, listed after two-factor and sso so its hooks see their
// outcome: it records sign-ins and failed sign-ins in the audit log, refuses a password
// session to a member whose organisations all enforce single sign-on, mails the notice of a new
// sign-in, and audits and announces password changes.
import type { BetterAuthPlugin } from "@better-auth/core";
import { APIError, createAuthMiddleware, getIP } from "better-auth/api";
import { deleteSessionCookie } from "better-auth/cookies";
import type { Db, IdentityTables } from "@/lib/db";
import { env } from "@/lib/env";
import { newSignInMessage, passwordChangedMessage } from "@/modules/mail/lib/messages";
import { deliverLater } from "@/modules/mail/lib/mailer";
import { auditAccountEvent } from "./identity-audit";
import { describeSignInMethod, isSsoMethod } from "./sign-in-method";

const SIGN_IN_PATHS = new Set([
  "/sign-in/email",
  "/two-factor/verify-totp",
  "/two-factor/verify-backup-code",
  "/sso/callback/:providerId",
  "/verify-email",
]);
const SECOND_FACTOR_PATHS = new Set(["/two-factor/verify-totp", "/two-factor/verify-backup-code"]);

type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];
type NewSession = {
  session: {
    id: string;
    token: string;
    userId: string;
    ipAddress?: string | null;
    userAgent?: string | null;
    signInMethod?: string | null;
  };
  user: { id: string; email: string; name: string; createdAt: Date };
};

function failureReason(error: APIError): string {
  const code = (error.body as { code?: string } | undefined)?.code;
  if (code === "INVALID_EMAIL_OR_PASSWORD") return "wrong password";
  if (code === "EMAIL_NOT_VERIFIED") return "e-mail address not verified";
  if (code === "INVALID_CODE") return "wrong authenticator code";
  if (code === "INVALID_BACKUP_CODE") return "wrong recovery code";
  return (error.body as { message?: string } | undefined)?.message ?? error.message;
}

function clientOf(ctx: HookContext) {
  const source = ctx.request ?? ctx.headers;
  return {
    address: source ? (getIP(source, ctx.context.options) ?? null) : null,
    userAgent: ctx.headers?.get("user-agent") ?? ctx.request?.headers.get("user-agent") ?? null,
  };
}

/** The user of a sign-in that waits for its second factor (better-auth's two_factor cookie). */
async function userWaitingForSecondFactor(ctx: HookContext): Promise<string | null> {
  const cookie = ctx.context.createAuthCookie("two_factor");
  const identifier = await ctx.getSignedCookie(cookie.name, ctx.context.secret);
  if (!identifier) return null;
  return (await ctx.context.internalAdapter.findVerificationValue(identifier))?.value ?? null;
}

export function identityEvents(db: Db, identity: IdentityTables): BetterAuthPlugin {
  /** The organisations that refuse this session: they enforce SSO, the member is not an owner, the session is not theirs. */
  async function refusingOrganisations(userId: string, method: string | null | undefined): Promise<string[] | null> {
    const memberships = await identity.member.findMany({
      where: { userId },
      select: { role: true, organization: { select: { name: true, ssoProviders: { select: { providerId: true, enforced: true } } } } },
    });
    if (memberships.length === 0) return null;
    const refusing = memberships.filter(
      ({ role, organization }) =>
        role !== "owner" && organization.ssoProviders.some((provider) => provider.enforced && !isSsoMethod(method, provider.providerId)),
    );
    return refusing.length === memberships.length ? refusing.map((m) => m.organization.name) : null;
  }

  async function signedIn(ctx: HookContext, created: NewSession) {
    const { session, user } = created;
    const method = session.signInMethod ?? null;
    const client = clientOf(ctx);
    const refusing = isSsoMethod(method) ? null : await refusingOrganisations(user.id, method);
    if (refusing) {
      await ctx.context.internalAdapter.deleteSession(session.token);
      deleteSessionCookie(ctx);
      await auditAccountEvent(db, identity, user.id, {
        actorId: user.id,
        action: "auth.sign_in_failed",
        target: user.id,
        details: { email: user.email, reason: "single sign-on required", method: describeSignInMethod(method), address: client.address },
      });
      throw new APIError("FORBIDDEN", {
        code: "SSO_REQUIRED",
        message: `${refusing.join(", ")} ${refusing.length > 1 ? "require" : "requires"} single sign-on: choose “Sign in with single sign-on” and use your company account.`,
      });
    }
    await auditAccountEvent(db, identity, user.id, {
      actorId: user.id,
      action: "auth.signed_in",
      target: session.id,
      details: { email: user.email, method: describeSignInMethod(method), address: client.address, userAgent: client.userAgent },
    }).catch(logFailure);
    await noticeNewSignIn(user, session, method, client).catch(logFailure);
  }

  async function noticeNewSignIn(
    user: NewSession["user"],
    session: NewSession["session"],
    method: string | null,
    client: { address: string | null; userAgent: string | null },
  ) {
    // The first sign-in of a new account (the confirmation link, a just-created SSO account) is not news.
    if (method === "email-link" || Date.now() - new Date(user.createdAt).getTime() < 5 * 60_000) return;
    // Compared as better-auth stored them on the sessions (an unknown address is stored as "").
    const known = await identity.session.count({
      where: { userId: user.id, id: { not: session.id }, ipAddress: session.ipAddress ?? null, userAgent: session.userAgent ?? null },
    });
    if (known > 0) return;
    const url = `${env().SPINDLE_CONSOLE_URL}/account/security`;
    deliverLater(newSignInMessage(user.email, user.name, { at: new Date(), method: describeSignInMethod(method), ...client }, url));
  }

  async function signInFailed(ctx: HookContext, error: APIError) {
    const client = clientOf(ctx);
    if (ctx.path === "/sign-in/email") {
      const email = String((ctx.body as { email?: unknown } | undefined)?.email ?? "")
        .trim()
        .toLowerCase();
      const user = email ? await identity.user.findUnique({ where: { email }, select: { id: true } }) : null;
      // An address without an account belongs to no organisation: there is no audit log to write to.
      if (!user) return;
      await auditAccountEvent(db, identity, user.id, {
        actorId: null,
        action: "auth.sign_in_failed",
        target: user.id,
        details: { email, reason: failureReason(error), address: client.address },
      });
      return;
    }
    const userId = await userWaitingForSecondFactor(ctx);
    if (!userId) return;
    const user = await identity.user.findUnique({ where: { id: userId }, select: { email: true } });
    await auditAccountEvent(db, identity, userId, {
      actorId: null,
      action: "auth.sign_in_failed",
      target: userId,
      details: { email: user?.email ?? "", reason: failureReason(error), address: client.address },
    });
  }

  async function passwordChanged(ctx: HookContext) {
    const user = ctx.context.session?.user;
    if (!user) return;
    await auditAccountEvent(db, identity, user.id, {
      actorId: user.id,
      action: "auth.password_changed",
      target: user.id,
      details: { email: user.email },
    });
    deliverLater(passwordChangedMessage(user.email, user.name, `${env().SPINDLE_CONSOLE_URL}/sign-in`));
  }

  return {
    id: "spindle-identity-events",
    hooks: {
      after: [
        {
          matcher: (ctx) => SIGN_IN_PATHS.has(ctx.path ?? "") || ctx.path === "/change-password",
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            if (ctx.path === "/change-password") {
              if (!(returned instanceof APIError)) await passwordChanged(ctx).catch(logFailure);
              return;
            }
            const created = ctx.context.newSession as NewSession | null;
            const enrolling = SECOND_FACTOR_PATHS.has(ctx.path) && Boolean(ctx.context.session?.session);
            if (created && !enrolling) return signedIn(ctx, created);
            if (returned instanceof APIError && returned.statusCode >= 400 && returned.statusCode < 500)
              await signInFailed(ctx, returned).catch(logFailure);
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}

function logFailure(error: unknown) {
  console.error("spindle-console: recording an account event failed:", error);
}
