// better-auth on the @spindle/db Prisma client: e-mail + password (argon2id) with verified
// addresses and password reset, sessions in http-only cookies (`secure` when the console is
// served over https), TOTP two-factor with recovery codes, organisations with the roles owner,
// admin and viewer and invitations by mail, OIDC single sign-on per organisation, and API tokens
// owned by an organisation. Built lazily so `next build` never needs the environment.
import { apiKey } from "@better-auth/api-key";
import { sso } from "@better-auth/sso";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { organization, twoFactor } from "better-auth/plugins";
import { clientAddressHeader } from "@/lib/client-address";
import { authPrisma, database, type Db, type Prisma } from "@/lib/db";
import { consoleIsHttps, env } from "@/lib/env";
import { accountExistsMessage, invitationMessage, resetPasswordMessage, verifyEmailMessage } from "@/modules/mail/lib/messages";
import { deliverLater } from "@/modules/mail/lib/mailer";
import { memberAuditHooks } from "@/modules/members/lib/member-audit-hooks";
import { ClientSecretBox } from "@/modules/sso/lib/sealed-client-secret";
import { withSealedSsoSecrets } from "@/modules/sso/lib/sealed-sso-prisma";
import { ssoOptions } from "@/modules/sso/lib/sso-options";
import { API_TOKEN_PREFIX } from "@/modules/api-tokens/types/api-token";
import { accessControl, roles } from "./access";
import { accountDatabaseHooks } from "./account-hooks";
import { auditAccountEvent } from "./identity-audit";
import { identityEvents } from "./identity-events";
import { invitationProof } from "./invitation-proof";
import { hashPassword, verifyPassword } from "./password";

const INVITATION_LIFETIME_SECONDS = 7 * 24 * 3600;
const VERIFICATION_LIFETIME_SECONDS = 24 * 3600;
const RESET_LIFETIME_SECONDS = 3600;

/**
 * `identity` is the whole Prisma client because better-auth's adapter wants one; it reads and
 * writes only its own tables (users, sessions, accounts, verifications, organizations, members,
 * invitations, two_factors, api_tokens, sso_providers), which carry no org_id. The audit entries
 * its hooks write go through `db` under row-level security like every other organisation write.
 */
export function createAuth(identity: Prisma, db: Db) {
  const { BETTER_AUTH_SECRET, SPINDLE_CONSOLE_URL, SPINDLE_SSO_TRUSTED_ISSUERS } = env();
  const sealed = withSealedSsoSecrets(identity, new ClientSecretBox(BETTER_AUTH_SECRET));
  const page = (path: string) => `${SPINDLE_CONSOLE_URL}${path}`;
  return betterAuth({
    appName: "Spindle",
    baseURL: SPINDLE_CONSOLE_URL,
    secret: BETTER_AUTH_SECRET,
    // Identity providers on private networks that an owner may configure (docs/configure.md).
    trustedOrigins: [SPINDLE_CONSOLE_URL, ...SPINDLE_SSO_TRUSTED_ISSUERS],
    // Transactions: an account and its user are created together, and single sign-on resolves and
    // links a user inside one (the sso plugin's resolveUser requires it).
    database: prismaAdapter(sealed, { provider: "postgresql", transaction: true }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      password: { hash: hashPassword, verify: verifyPassword },
      requireEmailVerification: true,
      resetPasswordTokenExpiresIn: RESET_LIFETIME_SECONDS,
      revokeSessionsOnPasswordReset: true,
      // Mail leaves in the background: neither the answer nor its timing says whether the
      // address has an account.
      sendResetPassword: async ({ user, url }) =>
        deliverLater(resetPasswordMessage(user.email, user.name, url, RESET_LIFETIME_SECONDS / 60)),
      onPasswordReset: async ({ user }) => {
        await auditAccountEvent(db, sealed, user.id, {
          actorId: user.id,
          action: "auth.password_reset",
          target: user.id,
          details: { email: user.email },
        });
      },
      onExistingUserSignUp: async ({ user }) => deliverLater(accountExistsMessage(user.email, page("/sign-in"), page("/forgot-password"))),
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      expiresIn: VERIFICATION_LIFETIME_SECONDS,
      sendVerificationEmail: async ({ user, url }) =>
        deliverLater(verifyEmailMessage(user.email, user.name, url, VERIFICATION_LIFETIME_SECONDS / 3600)),
    },
    session: {
      additionalFields: { signInMethod: { type: "string", required: false, input: false } },
    },
    // Reset and sign-in tokens are kept as hashes (better-auth still finds a plain one stored
    // before this setting), so the verifications table holds no usable reset link.
    verification: { storeIdentifier: "hashed" },
    advanced: {
      useSecureCookies: consoleIsHttps(),
      // The client address for rate limiting and session records: the one server.ts resolved
      // from the peer and, only through SPINDLE_TRUSTED_PROXIES, X-Forwarded-For
      // (lib/client-address.ts). A client cannot set this header: server.ts replaces it.
      ipAddress: { ipAddressHeaders: [clientAddressHeader] },
    },
    rateLimit: {
      // Password guessing: 10 sign-in attempts a minute per client address; reset and
      // verification mails: 5 a minute (better-auth's in-memory limiter, on in production builds).
      customRules: {
        "/sign-in/email": { window: 60, max: 10 },
        "/request-password-reset": { window: 60, max: 5 },
        "/send-verification-email": { window: 60, max: 5 },
      },
    },
    // The plugins' own management endpoints are reached through the console's API routes, which
    // check roles, scope to the organisation and audit; over HTTP they answer 404.
    disabledPaths: [
      "/api-key/create",
      "/api-key/update",
      "/api-key/delete",
      "/api-key/get",
      "/api-key/list",
      "/sso/register",
      "/sso/update-provider",
      "/sso/delete-provider",
      "/sso/providers",
      "/sso/get-provider",
      "/sso/request-domain-verification",
      "/sso/verify-domain",
    ],
    telemetry: { enabled: false },
    databaseHooks: accountDatabaseHooks(db, sealed),
    plugins: [
      organization({
        ac: accessControl,
        roles,
        creatorRole: "owner",
        invitationExpiresIn: INVITATION_LIFETIME_SECONDS,
        cancelPendingInvitationsOnReInvite: true,
        requireEmailVerificationOnInvitation: true,
        organizationHooks: memberAuditHooks(db),
        schema: {
          organization: { additionalFields: { requireMfa: { type: "boolean", required: false, defaultValue: false, input: false } } },
        },
        sendInvitationEmail: async ({ id, email, organization: org, inviter, role }) => {
          const url = page(`/invite/${id}?proof=${invitationProof(BETTER_AUTH_SECRET, id, email)}`);
          deliverLater(invitationMessage(email, inviter.user.name, org.name, role, url, INVITATION_LIFETIME_SECONDS / 86_400));
        },
      }),
      twoFactor({
        issuer: "Spindle",
        // Sign-in codes (TOTP) and recovery codes only; no codes by e-mail.
        backupCodeOptions: { amount: 10, length: 10 },
      }),
      sso(ssoOptions(db, sealed)),
      apiKey({
        references: "organization",
        defaultPrefix: API_TOKEN_PREFIX,
        defaultKeyLength: 48,
        startingCharactersConfig: { shouldStore: true, charactersLength: API_TOKEN_PREFIX.length + 4 },
        enableMetadata: true,
        requireName: true,
        maximumNameLength: 64,
        keyExpiration: { defaultExpiresIn: null, minExpiresIn: 1, maxExpiresIn: 366 },
        // Spindle counts each token's requests itself (modules/api-tokens/lib/token-rate-limit.ts).
        rateLimit: { enabled: false },
      }),
      identityEvents(db, sealed),
      nextCookies(), // must stay last: it forwards Set-Cookie from server-side auth calls
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const holder = globalThis as unknown as { spindleAuth?: Auth };

export function auth(): Auth {
  holder.spindleAuth ??= createAuth(authPrisma(), database());
  return holder.spindleAuth;
}
