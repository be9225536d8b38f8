// GET /api/compare's answer as a zod schema, for the OpenAPI document and its contract test;
// the TypeScript shapes are types/comparison.ts.
import { z } from "zod";
import { isoDateTime, series, unixSeconds } from "@/lib/openapi/schemas";
import { comparisonMetricNames } from "./comparison";

export const comparisonSchema = z.object({
  metric: z.enum(comparisonMetricNames),
  label: z.string(),
  unit: z.string(),
  range: z.string(),
  from: isoDateTime,
  to: isoDateTime,
  bucketSeconds: z.number().nullable(),
  servers: z.array(z.object({ id: z.uuid(), hostname: z.string(), time: unixSeconds, values: series })),
});
