import { confidenceSchema, evidenceSchema, predictionSchema, realisedEffectSchema, recommendationKinds } from "@spindle/domain";
import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";

export const recommendationSchema = z.object({
  id: z.string(),
  serverId: z.uuid(),
  hostname: z.string(),
  kind: z.enum(recommendationKinds),
  title: z.string(),
  steps: z.string(),
  change: z.string().nullable(),
  evidence: evidenceSchema,
  evidenceHref: z.string(),
  prediction: predictionSchema,
  confidence: confidenceSchema,
  status: z.enum(["open", "applied", "dismissed", "snoozed"]),
  snoozedUntil: nullableDateTime,
  statusChangedBy: z.string().nullable(),
  statusChangedAt: nullableDateTime,
  applied: z
    .object({ policyId: z.string().nullable(), policyName: z.string().nullable(), version: z.number().int().nullable(), at: isoDateTime })
    .nullable(),
  realised: realisedEffectSchema.nullable(),
  firstSeenAt: isoDateTime,
  refreshedAt: isoDateTime,
});
