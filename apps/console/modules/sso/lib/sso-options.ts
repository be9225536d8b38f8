// How Spindle configures better-auth's sso plugin: OIDC providers bound to one organisation each,
// users resolved by resolve-sso-user.ts (allowed domain, safe linking), and just-in-time
// membership with the organisation's default role, audited like any other member added.
import type { SSOOptions } from "@better-auth/sso";
import type { Db, IdentityTables } from "@/lib/db";
import { auditInOrganisation } from "@/modules/auth/lib/identity-audit";
import { resolveSsoUser } from "./resolve-sso-user";

export function ssoOptions(db: Db, identity: IdentityTables): SSOOptions {
  return {
    // One provider per organisation is enforced by the table; an owner of many organisations may
    // configure each of them.
    providersLimit: 1000,
    resolveUser: async (input) => {
      if (input.protocol !== "oidc")
        return { action: "reject", code: "saml_not_enabled", message: "Only OpenID Connect single sign-on is enabled." };
      return resolveSsoUser(identity, db, {
        providerId: input.providerId,
        accountId: input.accountKey.accountId,
        email: input.providerUser.email,
      });
    },
    organizationProvisioning: {
      getRole: async ({ user, provider }) => {
        const role = (provider as { defaultRole?: string }).defaultRole === "admin" ? "admin" : "viewer";
        if (provider.organizationId) {
          await auditInOrganisation(db, provider.organizationId, {
            actorId: user.id,
            action: "member.added",
            target: user.id,
            details: { email: user.email, role, via: "single sign-on" },
          });
        }
        // better-auth types the role as its own defaults ("member" | "admin"); ours are viewer | admin.
        return role as "admin";
      },
    },
    schema: {
      ssoProvider: {
        additionalFields: {
          defaultRole: { type: "string", required: false, defaultValue: "viewer", input: true },
          enforced: { type: "boolean", required: false, defaultValue: false, input: true },
        },
      },
    },
  };
}
