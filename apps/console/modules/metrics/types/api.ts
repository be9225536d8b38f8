import { z } from "zod";
import { series, unixSeconds } from "@/lib/openapi/schemas";
import { metricsRangeSchema } from "./metrics";

export const serverMetricsSchema = z.object({
  range: z
    .enum([...metricsRangeSchema.options, "custom"])
    .meta({ description: "The preset asked for, or custom (a zoom, a custom range)" }),
  source: z.object({ disk: z.string(), memory: z.string() }).meta({ description: "The tables the series came from" }),
  bucketSeconds: z.number().nullable().meta({ description: "Width of one point; null for raw samples" }),
  from: z.string(),
  to: z.string(),
  devices: z.array(
    z.object({
      device: z.string(),
      time: unixSeconds,
      readIops: series,
      writeIops: series,
      readMegabytesPerSecond: series,
      writeMegabytesPerSecond: series,
      readLatencyMs: series,
      writeLatencyMs: series,
      queueDepth: series,
      utilisationPercent: series,
    }),
  ),
  memory: z.object({ time: unixSeconds, totalBytes: series, availableBytes: series, cachedBytes: series, dirtyBytes: series }),
});
