import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";

export const enrollmentTokenSummarySchema = z.object({
  id: z.uuid(),
  label: z.string(),
  hint: z.string().meta({ description: "The token's last characters" }),
  status: z.enum(["active", "expired", "revoked"]),
  createdAt: isoDateTime,
  expiresAt: isoDateTime,
  revokedAt: nullableDateTime,
  uses: z.number().int(),
  lastUsedAt: nullableDateTime,
});

export const createdEnrollmentTokenSchema = enrollmentTokenSummarySchema.extend({
  token: z.string().meta({ description: "The secret: answered this once only" }),
  gatewayUrl: z.string().meta({ description: "The gateway the commands point at; over plain http the page warns before the copy" }),
  installCommand: z.string(),
  windowsInstallCommand: z.string().nullable().meta({ description: "null until a gateway has recorded the signing key the command pins" }),
});
