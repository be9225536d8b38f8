// The realised effect of an applied recommendation, beside its prediction (issue 30). What is
// compared is the change, not the level: the realised change of the read cache's hit ratio
// (after − what the same window showed on the previous days) with its interval from the verdict's
// machinery (placebo predictions from the previous days, or the block bootstrap against the
// previous day for a whole-day window), against the predicted change (prediction.after −
// prediction.before) with the confidence's tolerance. The answer:
// - consistent: the realised interval lies inside the predicted range;
// - inconsistent: the two do not overlap;
// - inconclusive: they overlap without one containing the other, or either is missing.
// Kinds whose effect these counters do not show say so.
import { z } from "zod";
import type { ReadCacheSums } from "../gains/reads.js";
import { isPresent } from "../gains/measured.js";
import { compareByBlockBootstrap, blockBootstrapDefaults } from "../gains/verdict/block-bootstrap.js";
import { intervalOf } from "../gains/verdict/estimate.js";
import { compareWithPreviousDays } from "../gains/verdict/previous-days.js";
import type { TimeWindow, WindowSums } from "../gains/verdict/window-sums.js";
import type { RatioUnit } from "../stats/ratio.js";
import type { Confidence, Prediction } from "./types.js";

const windowSchema = z.strictObject({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) });
const intervalSchema = z.strictObject({ low: z.number().finite(), high: z.number().finite() });

export const realisedAnswers = ["consistent", "inconsistent", "inconclusive"] as const;
export type RealisedAnswer = (typeof realisedAnswers)[number];

/** Stored as JSON next to the prediction (recommendations.realised). */
export const realisedEffectSchema = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("judged"),
    metric: z.literal("read_cache_hit_ratio"),
    answer: z.enum(realisedAnswers),
    /** Why that answer, in one sentence. */
    reason: z.string(),
    realised: z.strictObject({
      /** What the window showed on the previous days (the prediction from them); null when not measured. */
      before: z.number().finite().nullable(),
      after: z.number().finite(),
      /** after − before, in hit-ratio points as a fraction (0.27 = 27 points). */
      change: z.number().finite().nullable(),
      interval: intervalSchema.extend({ confidence: z.number() }).nullable(),
      method: z.enum(["previous-days", "block-bootstrap"]).nullable(),
      basis: z.string(),
    }),
    predicted: z.strictObject({
      before: z.number().finite().nullable(),
      after: z.number().finite().nullable(),
      change: z.number().finite().nullable(),
      /** change ± the confidence's tolerance. */
      range: intervalSchema.nullable(),
    }),
    windows: z.strictObject({ after: windowSchema }),
  }),
  // Written before issue 30: the level after against the predicted level; kept readable.
  z.strictObject({
    status: z.literal("measured"),
    metric: z.literal("read_cache_hit_ratio"),
    before: z.number().finite().nullable(),
    after: z.number().finite(),
    predicted: z.number().finite().nullable(),
    withinConfidence: z.boolean().nullable(),
    windows: z.strictObject({ before: windowSchema.nullable(), after: windowSchema }),
    basis: z.string(),
  }),
  z.strictObject({ status: z.literal("not-measured"), reason: z.string() }),
]);
export type RealisedEffect = z.infer<typeof realisedEffectSchema>;

/** The read cache's counters over the realised windows: the after window, the same window on each previous day, and minutes for the fallback. */
export interface RealisedInputs {
  after: ReadCacheSums;
  /** previousDays[i]: the same window i + 1 days before (null: nothing sent). */
  previousDays: readonly (ReadCacheSums | null)[];
  /** Consecutive 1-minute hits and misses (bytes) of the previous day's window and the after window; null when not read. */
  minutes: { before: RatioUnit[]; after: RatioUnit[] } | null;
}

export const realisedDefaults = {
  confidence: 0.95,
  /** Shorter realised windows give the level after, without an interval. */
  minimumMinutes: 60,
  /** 100 reads' worth of hit and miss bytes (4 KiB pages). */
  minimumDenominator: 100 * 4096,
};

function hitRatioSums(sums: ReadCacheSums | null): WindowSums | null {
  if (!sums || !isPresent(sums.hitsBytes) || !isPresent(sums.missesBytes)) return null;
  return { numerator: sums.hitsBytes, denominator: sums.hitsBytes + sums.missesBytes };
}

const iso = (window: TimeWindow) => ({ from: window.from.toISOString(), to: window.to.toISOString() });
const points = (value: number) => `${(value * 100).toFixed(1)} points`;

interface RealisedChange {
  before: number | null;
  change: number | null;
  interval: { low: number; high: number; confidence: number } | null;
  method: "previous-days" | "block-bootstrap" | null;
  basis: string;
  missing: string | null;
}

function realisedChange(
  after: WindowSums,
  inputs: RealisedInputs,
  afterWindow: TimeWindow,
  settings: typeof realisedDefaults,
): RealisedChange {
  const seconds = (afterWindow.to.getTime() - afterWindow.from.getTime()) / 1000;
  const minutes = Math.floor(seconds / 60);
  const length = seconds < 120 ? `${Math.round(seconds)} s` : `${minutes} minutes`;
  const none = (missing: string, basis: string): RealisedChange => ({
    before: null,
    change: null,
    interval: null,
    method: null,
    basis,
    missing,
  });
  const basis = `read-cache hits and misses (read_cache) over the ${length} after the change`;
  if (minutes < settings.minimumMinutes)
    return none(`the realised window is ${length}; a change needs at least ${settings.minimumMinutes} minutes`, basis);
  const options = { minimumDenominator: settings.minimumDenominator, scale: "absolute" as const };
  const days = compareWithPreviousDays(after, inputs.previousDays.map(hitRatioSums), "bytes read", options);
  if (days.status === "compared") {
    const interval = intervalOf(days.estimate, settings.confidence);
    return {
      before: days.expected,
      change: days.estimate.estimate,
      interval: { ...interval, confidence: settings.confidence },
      method: "previous-days",
      basis: `${basis}, against placebo predictions from the same window on ${days.days.length} previous days`,
      missing: null,
    };
  }
  if (minutes < blockBootstrapDefaults.minimumMinutes || !inputs.minutes) {
    return none(`no realised change: ${days.reason}`, basis);
  }
  const boot = compareByBlockBootstrap(inputs.minutes.before, inputs.minutes.after, "bytes read", options);
  if (boot.status !== "compared") return none(`no realised change: ${days.reason}; block bootstrap: ${boot.reason}`, basis);
  const interval = intervalOf(boot.estimate, settings.confidence);
  return {
    before: boot.before,
    change: boot.estimate.estimate,
    interval: { ...interval, confidence: settings.confidence },
    method: "block-bootstrap",
    basis: `${basis}, against the same hours of the previous day (block bootstrap of 1-minute buckets; it cannot see how whole days differ)`,
    missing: null,
  };
}

function answerOf(
  realised: RealisedChange,
  range: { low: number; high: number } | null,
  predictedMissing: string | null,
): { answer: RealisedAnswer; reason: string } {
  if (predictedMissing) return { answer: "inconclusive", reason: predictedMissing };
  if (!realised.interval || !range) return { answer: "inconclusive", reason: realised.missing ?? "the realised change has no interval" };
  const { low, high } = realised.interval;
  const realisedText = `the realised change's ${Math.round(realised.interval.confidence * 100)} % interval [${points(low)}, ${points(high)}]`;
  const predictedText = `the predicted range [${points(range.low)}, ${points(range.high)}]`;
  if (low >= range.low && high <= range.high) return { answer: "consistent", reason: `${realisedText} lies inside ${predictedText}` };
  if (high < range.low || low > range.high) return { answer: "inconsistent", reason: `${realisedText} lies outside ${predictedText}` };
  return {
    answer: "inconclusive",
    reason: `${realisedText} overlaps ${predictedText} without lying inside it: more days of history or a longer window would tell`,
  };
}

export function realisedEffect(
  prediction: Prediction,
  confidence: Confidence,
  afterWindow: TimeWindow,
  inputs: RealisedInputs,
  options: Partial<typeof realisedDefaults> = {},
): RealisedEffect {
  const settings = { ...realisedDefaults, ...options };
  if (prediction.metric !== "read_cache_hit_ratio" && prediction.metric !== "page_cache_miss_share") {
    return {
      status: "not-measured",
      reason: "this kind's effect is not in the read cache's counters: compare the evidence chart before and after",
    };
  }
  const after = hitRatioSums(inputs.after);
  if (after === null || after.denominator === 0) {
    return {
      status: "not-measured",
      reason: "the agent sent no read-cache hits or misses after the change (they need eBPF and the read cache on)",
    };
  }
  const realised = realisedChange(after, inputs, afterWindow, settings);
  const numeric = prediction.metric === "read_cache_hit_ratio";
  const predictedChange = numeric && prediction.before !== null && prediction.after !== null ? prediction.after - prediction.before : null;
  const range =
    predictedChange !== null && confidence.tolerance !== null
      ? { low: predictedChange - confidence.tolerance, high: predictedChange + confidence.tolerance }
      : null;
  const predictedMissing = !numeric
    ? "the prediction is not a change of the read cache's hit ratio, so there is nothing numeric to hold the realised change to"
    : predictedChange === null
      ? "the prediction has no hit ratio at today's setting, so there is no predicted change"
      : range === null
        ? "the prediction states no tolerance"
        : null;
  return {
    status: "judged",
    metric: "read_cache_hit_ratio",
    ...answerOf(realised, range, predictedMissing),
    realised: {
      before: realised.before,
      after: after.numerator / after.denominator,
      change: realised.change,
      interval: realised.interval,
      method: realised.method,
      basis: realised.basis,
    },
    predicted: { before: numeric ? prediction.before : null, after: numeric ? prediction.after : null, change: predictedChange, range },
    windows: { after: iso(afterWindow) },
  };
}
