import { z } from "zod";
import { nullableDateTime, series, unixSeconds } from "@/lib/openapi/schemas";
import { metricsRangeSchema } from "@/modules/metrics/types/metrics";

const untimed = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("measured"),
    operations: z.number(),
    sharePercent: z.number().nullable(),
    uncountedTimedOperations: z.number(),
  }),
  z.object({ status: z.literal("not-measured"), reason: z.string() }),
]);

const nullableNumber = z.number().nullable();

export const deepTelemetrySchema = z.object({
  range: z
    .enum([...metricsRangeSchema.options, "custom"])
    .meta({ description: "The preset asked for, or custom (a zoom, a custom range)" }),
  bucketSeconds: nullableNumber,
  from: z.string(),
  to: z.string(),
  capabilities: z.object({
    reportedAt: nullableDateTime,
    items: z.array(z.object({ name: z.string(), label: z.string(), available: z.boolean(), whenMissing: z.string() })),
  }),
  latency: z
    .array(
      z.object({
        device: z.string(),
        operation: z.string(),
        time: unixSeconds,
        p50Ms: series,
        p95Ms: series,
        p99Ms: series,
        summary: z.object({ operations: z.number(), p50: z.string(), p95: z.string(), p99: z.string(), averageMs: nullableNumber }),
        untimed,
      }),
    )
    .meta({ description: "Percentiles are bucket upper edges (ms) of merged log2 buckets" }),
  latencyBasis: z.object({ timedOperations: z.number(), untimed }),
  splitIo: z.array(z.object({ device: z.string(), time: unixSeconds, splitIosPerSecond: series, averagePerSecond: nullableNumber })),
  cacheHit: z.object({ time: unixSeconds, hitRatioPercent: series, overallPercent: nullableNumber }),
  cacheTopFiles: z.object({
    seenAt: nullableDateTime,
    intervalSeconds: nullableNumber,
    files: z.array(z.object({ path: z.string(), accesses: z.number(), misses: z.number(), hitRatioPercent: z.number() })),
  }),
  fragmentation: z.array(
    z.object({
      root: z.string(),
      scannedAt: z.string(),
      files: z.number(),
      fragmentedFiles: z.number(),
      extents: z.number(),
      excessExtents: z.number(),
      unsupportedFiles: nullableNumber,
      scanDurationMs: nullableNumber,
      worstFiles: z.array(z.object({ path: z.string(), extents: z.number(), sizeBytes: z.number() })),
    }),
  ),
  databases: z.array(
    z.object({
      database: z.string(),
      time: unixSeconds,
      transactionsPerSecond: series,
      bufferHitRatioPercent: series,
      overall: z.object({
        transactionsPerSecond: nullableNumber,
        bufferHitRatioPercent: nullableNumber,
        rollbacksPerSecond: nullableNumber,
      }),
    }),
  ),
  sqlServers: z.array(
    z.object({
      instance: z.string(),
      time: unixSeconds,
      batchRequestsPerSecond: series,
      bufferHitRatioPercent: series,
      pageLifeExpectancySeconds: series,
      overall: z.object({
        batchRequestsPerSecond: nullableNumber,
        bufferHitRatioPercent: nullableNumber,
        pageLifeExpectancySeconds: nullableNumber,
      }),
    }),
  ),
});
