// The realised effect of an applied recommendation, beside its prediction: the read cache's hit
// ratio (hits / (hits + misses), from read_cache) in the matched windows before and after the
// change (gains/windows.ts). Kinds whose effect these counters do not show say so.
import { z } from "zod";
import type { ReadCacheSums } from "../gains/reads.js";
import { isPresent } from "../gains/measured.js";
import type { TimeWindow } from "../gains/verdict/window-sums.js";
import type { Confidence, Prediction } from "./types.js";

const windowSchema = z.strictObject({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) });

/** Stored as JSON next to the prediction (recommendations.realised). */
export const realisedEffectSchema = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("measured"),
    metric: z.literal("read_cache_hit_ratio"),
    before: z.number().finite().nullable(),
    after: z.number().finite(),
    predicted: z.number().finite().nullable(),
    /** |after − predicted| within the confidence's tolerance; null without a numeric prediction. */
    withinConfidence: z.boolean().nullable(),
    windows: z.strictObject({ before: windowSchema.nullable(), after: windowSchema }),
    basis: z.string(),
  }),
  z.strictObject({ status: z.literal("not-measured"), reason: z.string() }),
]);
export type RealisedEffect = z.infer<typeof realisedEffectSchema>;

function hitRatio(sums: ReadCacheSums): number | null {
  if (!isPresent(sums.hitsBytes) || !isPresent(sums.missesBytes)) return null;
  const total = sums.hitsBytes + sums.missesBytes;
  return total > 0 ? sums.hitsBytes / total : null;
}

const iso = (window: TimeWindow) => ({ from: window.from.toISOString(), to: window.to.toISOString() });

export function realisedEffect(
  prediction: Prediction,
  confidence: Confidence,
  windows: { before: TimeWindow | null; after: TimeWindow },
  sums: { before: ReadCacheSums | null; after: ReadCacheSums },
): RealisedEffect {
  if (prediction.metric !== "read_cache_hit_ratio" && prediction.metric !== "page_cache_miss_share") {
    return { status: "not-measured", reason: "this kind's effect is not in the read cache's counters: compare the evidence chart before and after" };
  }
  const after = hitRatio(sums.after);
  if (after === null) {
    return { status: "not-measured", reason: "the agent sent no read-cache hits or misses after the change (they need eBPF and the read cache on)" };
  }
  const before = sums.before ? hitRatio(sums.before) : null;
  const predicted = prediction.metric === "read_cache_hit_ratio" ? prediction.after : null;
  const withinConfidence = predicted !== null && confidence.tolerance !== null ? Math.abs(after - predicted) <= confidence.tolerance : null;
  return {
    status: "measured",
    metric: "read_cache_hit_ratio",
    before,
    after,
    predicted,
    withinConfidence,
    windows: { before: windows.before ? iso(windows.before) : null, after: iso(windows.after) },
    basis: `read-cache hits and misses (read_cache) over ${sums.after.samples} intervals after the change` +
      (sums.before ? ` and ${sums.before.samples} before` : ""),
  };
}
