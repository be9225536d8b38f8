// Who an identity provider's answer may sign in as (better-auth's sso `resolveUser`, run inside
// the plugin's transaction before any account is linked or created):
// - only addresses of the organisation's allowed domain: anyone else is refused, and the refusal
//   is audited in the organisation;
// - an identity already linked to this provider signs in as its user;
// - a new address becomes a new user (just-in-time membership follows, with the default role);
// - an existing account with the same address is linked only when the organisation already
//   manages it alone (it belongs to this organisation and to no other): an identity provider
//   must not be able to take over an account that other organisations trust.
import type { SSOUserResolution } from "@better-auth/sso";
import type { Db, IdentityTables } from "@/lib/db";
import { auditInOrganisation } from "@/modules/auth/lib/identity-audit";

export interface SsoIdentity {
  providerId: string;
  accountId: string;
  email: string;
}

export function emailInDomain(email: string, domain: string): boolean {
  const at = email.lastIndexOf("@");
  return at > 0 && email.slice(at + 1).toLowerCase() === domain.toLowerCase();
}

export async function resolveSsoUser(identity: IdentityTables, db: Db, who: SsoIdentity): Promise<SSOUserResolution> {
  const email = who.email.trim().toLowerCase();
  const provider = await identity.ssoProvider.findUnique({
    where: { providerId: who.providerId },
    select: { organizationId: true, domain: true },
  });
  if (!provider?.organizationId)
    return {
      action: "reject",
      code: "provider_not_configured",
      message: "Single sign-on is not configured for this organisation any more.",
    };
  const orgId = provider.organizationId;
  const refuse = async (code: string, reason: string, message: string): Promise<SSOUserResolution> => {
    await auditInOrganisation(db, orgId, { actorId: null, action: "auth.sso_refused", target: who.providerId, details: { email, reason } });
    return { action: "reject", code, message };
  };

  if (!emailInDomain(email, provider.domain)) {
    return refuse(
      "domain_not_allowed",
      `not in ${provider.domain}`,
      `Single sign-on for this organisation accepts only @${provider.domain} addresses.`,
    );
  }
  const linked = await identity.account.findFirst({
    where: { providerId: who.providerId, accountId: who.accountId },
    select: { userId: true },
  });
  if (linked) return { action: "continue" };
  const existing = await identity.user.findUnique({
    where: { email },
    select: { id: true, members: { select: { organizationId: true } } },
  });
  if (!existing) return { action: "continue" };
  const others = existing.members.filter((member) => member.organizationId !== orgId);
  if (others.length > 0) {
    return refuse(
      "account_in_other_organisations",
      "the account belongs to other organisations too",
      "An account with this address already belongs to other organisations: sign in with its password instead.",
    );
  }
  return { action: "link", userId: existing.id, profile: "preserve" };
}
