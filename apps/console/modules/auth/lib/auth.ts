// better-auth on the @spindle/db Prisma client: email + password (argon2id), sessions in
// http-only cookies (`secure` when the console is served over https), and organisations with
// the roles owner, admin and viewer. Built lazily so `next build` never needs the environment.
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { organization } from "better-auth/plugins";
import { clientAddressHeader } from "@/lib/client-address";
import { authPrisma, database, type Db, type Prisma } from "@/lib/db";
import { consoleIsHttps, env } from "@/lib/env";
import { memberAuditHooks } from "@/modules/members/lib/member-audit-hooks";
import { accessControl, roles } from "./access";
import { hashPassword, verifyPassword } from "./password";

const INVITATION_LIFETIME_SECONDS = 7 * 24 * 3600;

/**
 * `identity` is the whole Prisma client because better-auth's adapter wants one; it reads and
 * writes only its own tables (users, sessions, accounts, verifications, organizations, members,
 * invitations), which carry no org_id. The audit entries its hooks write go through `db` under
 * row-level security like every other organisation write.
 */
export function createAuth(identity: Prisma, db: Db) {
  const { BETTER_AUTH_SECRET, SPINDLE_CONSOLE_URL } = env();
  return betterAuth({
    appName: "Spindle",
    baseURL: SPINDLE_CONSOLE_URL,
    secret: BETTER_AUTH_SECRET,
    trustedOrigins: [SPINDLE_CONSOLE_URL],
    database: prismaAdapter(identity, { provider: "postgresql" }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      password: { hash: hashPassword, verify: verifyPassword },
    },
    advanced: {
      useSecureCookies: consoleIsHttps(),
      // The client address for rate limiting and session records: the one server.ts resolved
      // from the peer and, only through SPINDLE_TRUSTED_PROXIES, X-Forwarded-For
      // (lib/client-address.ts). A client cannot set this header: server.ts replaces it.
      ipAddress: { ipAddressHeaders: [clientAddressHeader] },
    },
    rateLimit: {
      // Password guessing: 10 sign-in attempts a minute per client address (better-auth's
      // in-memory limiter, on in production builds).
      customRules: { "/sign-in/email": { window: 60, max: 10 } },
    },
    telemetry: { enabled: false },
    databaseHooks: {
      session: {
        create: {
          // Land every new session in the user's oldest organisation, so signing in goes
          // straight to the fleet instead of an organisation picker.
          before: async (session) => {
            const membership = await identity.member.findFirst({
              where: { userId: session.userId },
              orderBy: { createdAt: "asc" },
              select: { organizationId: true },
            });
            return { data: { ...session, activeOrganizationId: membership?.organizationId ?? null } };
          },
        },
      },
    },
    plugins: [
      organization({
        ac: accessControl,
        roles,
        creatorRole: "owner",
        invitationExpiresIn: INVITATION_LIFETIME_SECONDS,
        cancelPendingInvitationsOnReInvite: true,
        organizationHooks: memberAuditHooks(db),
        // Invitations are delivered as a link the inviter copies; email arrives with alerting.
      }),
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
