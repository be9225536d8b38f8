// Resolves who is asking and in which organisation: the session's user, or the member an API
// token acts for (Authorization: Bearer). API routes get a problem (401 / 403); pages get a
// redirect (see page-context.ts). The organisation's own requirements apply to sessions: MFA
// for password sign-ins when the owners require it, single sign-on when they enforce it.
import { clientAddressOf } from "@/lib/client-address";
import { database, identityTables } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { bearerToken, resolveTokenContext } from "@/modules/api-tokens/lib/token-context";
import type { OrgContext } from "../types/context";
import { isRoleName } from "./access";
import { auth } from "./auth";
import { isSsoMethod } from "./sign-in-method";

export type OrgContextResult =
  | { kind: "ok"; context: OrgContext }
  | { kind: "signed-out" }
  | { kind: "no-organisation"; userName: string }
  | { kind: "mfa-required"; orgName: string }
  | { kind: "sso-required"; orgName: string; orgSlug: string };

/**
 * The session's active organisation if the user still belongs to it; otherwise their oldest
 * membership (a session that predates their first organisation, or an organisation they left).
 */
async function findMembership(userId: string, activeOrgId: string | null | undefined) {
  const include = {
    organization: { select: { name: true, slug: true, requireMfa: true, ssoProviders: { select: { providerId: true, enforced: true } } } },
  } as const;
  const members = identityTables(database()).member;
  const active = activeOrgId ? await members.findFirst({ where: { userId, organizationId: activeOrgId }, include }) : null;
  return active ?? (await members.findFirst({ where: { userId }, orderBy: { createdAt: "asc" }, include }));
}

export async function resolveOrgContext(headers: Headers): Promise<OrgContextResult> {
  const token = bearerToken(headers);
  if (token !== null) return { kind: "ok", context: await resolveTokenContext(token, clientAddressOf(headers)) };
  const session = await auth().api.getSession({ headers });
  if (!session) return { kind: "signed-out" };
  const member = await findMembership(session.user.id, session.session.activeOrganizationId);
  if (!member || !isRoleName(member.role)) return { kind: "no-organisation", userName: session.user.name };
  const { organization } = member;
  const method = (session.session as { signInMethod?: string | null }).signInMethod;
  // Owners keep their password sign-in when SSO is enforced: the way back in if the identity
  // provider fails or is misconfigured.
  const enforced = organization.ssoProviders.find((provider) => provider.enforced);
  if (enforced && member.role !== "owner" && !isSsoMethod(method, enforced.providerId)) {
    return { kind: "sso-required", orgName: organization.name, orgSlug: organization.slug };
  }
  if (organization.requireMfa && !isSsoMethod(method) && !(session.user as { twoFactorEnabled?: boolean }).twoFactorEnabled) {
    return { kind: "mfa-required", orgName: organization.name };
  }
  return {
    kind: "ok",
    context: {
      userId: session.user.id,
      userName: session.user.name,
      userEmail: session.user.email,
      orgId: member.organizationId,
      orgName: organization.name,
      role: member.role,
    },
  };
}

export async function requireOrgContext(headers: Headers): Promise<OrgContext> {
  const result = await resolveOrgContext(headers);
  switch (result.kind) {
    case "ok":
      return result.context;
    case "signed-out":
      throw new ProblemError(
        401,
        "Unauthorized",
        "Sign in, or send an API token as Authorization: Bearer <token>, to use the Spindle API.",
        undefined,
        { "www-authenticate": 'Bearer realm="spindle"' },
      );
    case "no-organisation":
      throw new ProblemError(403, "No organisation", "Create or join an organisation first.");
    case "mfa-required":
      throw new ProblemError(
        403,
        "Two-factor authentication required",
        `${result.orgName} requires two-factor authentication: turn it on in Account → Security, or use an API token.`,
      );
    case "sso-required":
      throw new ProblemError(
        403,
        "Single sign-on required",
        `${result.orgName} requires single sign-on: sign in with your company account, or use an API token.`,
      );
  }
}
