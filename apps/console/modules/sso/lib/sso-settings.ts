// An organisation's security settings: whether MFA is required, and its OIDC single sign-on
// (issuer, client, allowed domain, default role for just-in-time members, enforcement). Owners
// change them; every change is audited. The provider row is better-auth's, written through its
// sso plugin with the owner's session so the plugin's own checks run; the client secret is sealed
// on its way to the table (sealed-sso-prisma.ts) and never answered.
import { APIError } from "better-auth/api";
import { database, identityTables, inOrg, type Db } from "@/lib/db";
import { env } from "@/lib/env";
import { ProblemError } from "@/lib/problem";
import { auth } from "@/modules/auth/lib/auth";
import type { OrgContext } from "@/modules/auth/types/context";
import type { OrganisationSecurity, SaveSsoInput, SsoSettings } from "../types/sso";
import { discoverIssuer } from "./sso-discovery";

/** One provider per organisation, named after it. */
export function providerIdFor(orgId: string): string {
  return `org-${orgId}`;
}

export function redirectUriFor(providerId: string): string {
  return `${env().SPINDLE_CONSOLE_URL}/api/auth/sso/callback/${providerId}`;
}

async function audit(db: Db, context: OrgContext, action: string, details: Record<string, string | boolean>) {
  await inOrg(db, context.orgId, (tx) =>
    tx.auditLog.create({ data: { orgId: context.orgId, actorId: context.userId, action, target: context.orgId, details } }),
  );
}

export async function getSsoSettings(orgId: string): Promise<SsoSettings | null> {
  const identity = identityTables(database());
  // Read without opening the sealed secret: only the client id is needed from oidc_config.
  const row = await identity.ssoProvider.findUnique({ where: { organizationId: orgId } });
  if (!row) return null;
  const config = JSON.parse(row.oidcConfig ?? "{}") as { clientId?: string };
  return {
    providerId: row.providerId,
    issuer: row.issuer,
    clientId: config.clientId ?? "",
    domain: row.domain,
    defaultRole: row.defaultRole === "admin" ? "admin" : "viewer",
    enforced: row.enforced,
    redirectUri: redirectUriFor(row.providerId),
    linkedAccounts: await identity.account.count({ where: { providerId: row.providerId } }),
  };
}

export async function getOrganisationSecurity(orgId: string): Promise<OrganisationSecurity> {
  const org = await identityTables(database()).organization.findUnique({ where: { id: orgId }, select: { requireMfa: true } });
  return { requireMfa: org?.requireMfa ?? false, sso: await getSsoSettings(orgId), redirectUri: redirectUriFor(providerIdFor(orgId)) };
}

function fromPlugin(error: unknown): never {
  if (error instanceof APIError) {
    const message = (error.body as { message?: string } | undefined)?.message ?? error.message;
    throw new ProblemError(
      error.statusCode >= 500 ? 502 : error.statusCode === 409 ? 409 : 422,
      "Single sign-on not saved",
      error.statusCode === 409 && /linked accounts/.test(message)
        ? "Members already sign in through this provider, so its issuer and client cannot change. Remove single sign-on first, then set up the new provider."
        : message,
    );
  }
  throw error;
}

export async function saveSsoSettings(db: Db, context: OrgContext, headers: Headers, input: SaveSsoInput): Promise<SsoSettings> {
  const providerId = providerIdFor(context.orgId);
  const existing = await getSsoSettings(context.orgId);
  if (!existing && !input.clientSecret)
    throw new ProblemError(400, "Invalid request", "Enter the client secret the identity provider gave Spindle.");
  const endpoints = await discoverIssuer(input.issuer);
  const oidcConfig = {
    clientId: input.clientId,
    ...(input.clientSecret ? { clientSecret: input.clientSecret } : {}),
    ...endpoints,
    skipDiscovery: true,
    pkce: true,
    scopes: ["openid", "email", "profile"],
  };
  try {
    if (existing) {
      await auth().api.updateSSOProvider({
        headers,
        body: {
          providerId,
          issuer: input.issuer,
          domain: input.domain,
          oidcConfig,
          defaultRole: input.defaultRole,
          enforced: input.enforced,
        } as never,
      });
    } else {
      await auth().api.registerSSOProvider({
        headers,
        body: {
          providerId,
          organizationId: context.orgId,
          issuer: input.issuer,
          domain: input.domain,
          oidcConfig: oidcConfig as never,
          defaultRole: input.defaultRole,
          enforced: input.enforced,
        } as never,
      });
    }
  } catch (error) {
    fromPlugin(error);
  }
  await audit(db, context, existing ? "sso.updated" : "sso.configured", {
    issuer: input.issuer,
    domain: input.domain,
    defaultRole: input.defaultRole,
    enforced: input.enforced,
    secretChanged: Boolean(input.clientSecret),
  });
  return (await getSsoSettings(context.orgId))!;
}

export async function removeSsoSettings(db: Db, context: OrgContext, headers: Headers): Promise<{ removed: boolean }> {
  const existing = await getSsoSettings(context.orgId);
  if (!existing) return { removed: false };
  try {
    await auth().api.deleteSSOProvider({ headers, body: { providerId: existing.providerId } });
  } catch (error) {
    fromPlugin(error);
  }
  await audit(db, context, "sso.removed", { issuer: existing.issuer, domain: existing.domain });
  return { removed: true };
}

export async function setRequireMfa(db: Db, context: OrgContext, requireMfa: boolean): Promise<{ requireMfa: boolean }> {
  const identity = identityTables(database());
  if (requireMfa) {
    const me = await identity.user.findUnique({ where: { id: context.userId }, select: { twoFactorEnabled: true } });
    if (!me?.twoFactorEnabled) {
      throw new ProblemError(
        409,
        "Turn on your own two-factor authentication first",
        "Requiring MFA would lock you out of the organisation: turn it on for your account in Account → Security, then require it here.",
      );
    }
  }
  const before = await identity.organization.update({ where: { id: context.orgId }, data: { requireMfa }, select: { requireMfa: true } });
  await audit(db, context, requireMfa ? "organization.mfa_required" : "organization.mfa_not_required", { requireMfa: before.requireMfa });
  return { requireMfa };
}
