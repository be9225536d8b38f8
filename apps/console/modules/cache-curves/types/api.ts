import { z } from "zod";

const marker = z.object({ bytes: z.number(), basis: z.string() }).nullable();

export const cacheCurvesSchema = z.object({
  windows: z.array(z.object({ end: z.string(), windowSeconds: z.number() })),
  end: z.string().nullable(),
  curves: z.array(
    z.object({
      curve: z.enum(["page_cache", "read_cache", "block"]),
      scope: z.string(),
      sampleRate: z.number(),
      sampledAccesses: z.number(),
      windowSeconds: z.number(),
      sizesBytes: z.array(z.number()),
      hitRatios: z.array(z.number()),
    }),
  ),
  readCacheBudget: marker,
  spareMemory: marker,
});
