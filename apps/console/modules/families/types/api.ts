import { z } from "zod";
import { series, unixSeconds } from "@/lib/openapi/schemas";
import { metricsRangeSchema } from "@/modules/metrics/types/metrics";

const windowRangeSchema = z.enum([...metricsRangeSchema.options, "custom"]);

/** One family's points of a server (types/family-series.ts), as the API answers them. */
export const familySeriesSchema = z.object({
  table: z.string(),
  range: windowRangeSchema,
  from: z.string(),
  to: z.string(),
  bucketSeconds: z.number().nullable(),
  columns: z.array(z.string()),
  series: z.array(z.object({ key: z.record(z.string(), z.string()), time: unixSeconds, values: z.record(z.string(), series) })),
});

export const familiesAnswerSchema = z.object({ range: windowRangeSchema, from: z.string(), families: z.array(familySeriesSchema) });
