// Building blocks of the API's response schemas (the OpenAPI document is generated from them,
// and the contract test holds every answer to them). They describe JSON on the wire: times are
// ISO 8601 strings, missing measurements are null or "not-measured", never 0.
import { z } from "zod";

export const isoDateTime = z.iso.datetime({ offset: true });
export const nullableDateTime = isoDateTime.nullable();

/** A columnar series: one value per point of `time`; null = no sample there (a gap in the chart). */
export const series = z.array(z.number().nullable());
/** Unix seconds, one per point. */
export const unixSeconds = z.array(z.number());

/** RFC 9457 problem details, as every error leaves the API. */
export const problemSchema = z
  .object({
    type: z.string(),
    status: z.number().int(),
    title: z.string(),
    detail: z.string().optional(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string(), code: z.string().optional() }).loose())
      .optional()
      .meta({ description: "Per-field problems of an invalid request or document" }),
  })
  .loose()
  .meta({ description: "RFC 9457 problem details (application/problem+json)" });

export const basisInput = z.object({ label: z.string(), source: z.string(), samples: z.number(), sampleUnit: z.string() });

/** A figure with what it rests on, or why it is missing (docs/gains.md). */
export function measured<T extends z.ZodType>(value: T) {
  return z.discriminatedUnion("status", [
    z.object({ status: z.literal("measured"), value, basis: z.array(basisInput) }),
    z.object({ status: z.literal("not-measured"), reason: z.string() }),
  ]);
}

export const author = z.object({ id: z.string(), name: z.string() });
