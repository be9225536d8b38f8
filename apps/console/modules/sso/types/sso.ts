import { z } from "zod";

const issuer = z
  .string()
  .trim()
  .url("The issuer must be a URL, e.g. https://login.example.com/realms/acme")
  .refine(
    (value) => /^https?:\/\//.test(value),
    "The issuer must start with https:// (or http:// for an identity provider on your own network)",
  )
  .transform((value) => value.replace(/\/+$/, ""));

export const ssoRoles = ["viewer", "admin"] as const;

export const saveSsoInput = z.strictObject({
  issuer: issuer.meta({ description: "The OpenID Connect issuer; its /.well-known/openid-configuration is read" }),
  clientId: z.string().trim().min(1, "Enter the client id the identity provider gave Spindle").max(255),
  clientSecret: z.string().min(1).max(1024).optional().meta({ description: "Required the first time; omit to keep the stored secret" }),
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(
      /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
      "Enter an e-mail domain such as example.com (no @, no scheme)",
    ),
  defaultRole: z.enum(ssoRoles).default("viewer"),
  enforced: z.boolean().default(false),
});
export type SaveSsoInput = z.infer<typeof saveSsoInput>;

export const ssoSettings = z.object({
  providerId: z.string(),
  issuer: z.string(),
  clientId: z.string(),
  domain: z.string(),
  defaultRole: z.enum(ssoRoles),
  enforced: z.boolean(),
  redirectUri: z.string().meta({ description: "Register this as the redirect (callback) URI at the identity provider" }),
  linkedAccounts: z.number().int(),
});
export type SsoSettings = z.infer<typeof ssoSettings>;

export const organisationSecurity = z.object({
  requireMfa: z.boolean(),
  sso: ssoSettings.nullable(),
  redirectUri: z.string().meta({ description: "The redirect URI this organisation's provider uses" }),
});
export type OrganisationSecurity = z.infer<typeof organisationSecurity>;

export const requireMfaInput = z.strictObject({ requireMfa: z.boolean() });
