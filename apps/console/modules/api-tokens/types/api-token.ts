import { z } from "zod";

/** Every API token starts with this, so secret scanners and people recognise it. */
export const API_TOKEN_PREFIX = "spk_";

/** A token acts with one of these roles (never more than its creator's role at the time of use). */
export const apiTokenRoles = ["viewer", "admin"] as const;
export type ApiTokenRole = (typeof apiTokenRoles)[number];

export const createApiTokenInput = z.strictObject({
  name: z.string().trim().min(1, "Give the token a name").max(64, "At most 64 characters"),
  role: z.enum(apiTokenRoles),
  expiresInDays: z.number().int().min(1, "At least 1 day").max(366, "At most 366 days").default(90),
});
export type CreateApiTokenInput = z.infer<typeof createApiTokenInput>;

/** What the plugin's metadata column holds for our tokens. */
export const apiTokenMetadata = z.object({
  role: z.enum(apiTokenRoles),
  createdBy: z.string(),
  revokedAt: z.string().optional(),
  revokedBy: z.string().optional(),
});
export type ApiTokenMetadata = z.infer<typeof apiTokenMetadata>;

export const apiTokenSummary = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(apiTokenRoles),
  start: z.string().nullable().meta({ description: "The token's first characters, to recognise it" }),
  status: z.enum(["active", "revoked", "expired"]),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  lastUsedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  createdBy: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export type ApiTokenSummary = z.infer<typeof apiTokenSummary>;
