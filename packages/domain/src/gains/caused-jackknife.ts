// The interval of the miss-ratio difference (control − managed) by a delete-one-bucket jackknife.
//
// The agent hashes every page group a second time, independently of the control draw, into one of
// 16 buckets and counts both groups' accesses and misses per bucket (spindle_holdout.h). Each
// bucket is then a small copy of the whole experiment: a random share of the page groups, with
// their own draw into the control, over the whole range. How much the estimate moves when one
// bucket is left out measures both what the block bootstrap sees (the intervals of time: every
// bucket spans them all) and what it cannot (which page groups the draw put in the control, when
// the groups differ in heat and miss ratio). The variance is the jackknife's,
// (G − 1) / G · Σ (θ₋ᵦ − θ̄)² over the G buckets that had accesses, and the interval Student-t
// on G − 1 degrees of freedom around the estimate.
import { studentTCritical } from "../stats/student-t.js";
import { missRatioDifference, type GroupTotals } from "./caused-units.js";

/** Buckets the agent hashes page groups into (spindle_holdout.h HOLDOUT_BUCKETS). */
export const holdoutBuckets = 16;

export interface JackknifeInterval {
  low: number;
  high: number;
  confidence: number;
  /** Buckets that had accesses, and the degrees of freedom of the t quantile (buckets − 1). */
  buckets: number;
  degreesOfFreedom: number;
  standardError: number;
}

const sum = (totals: readonly GroupTotals[]): GroupTotals => {
  const out = { managedAccessed: 0, managedMissed: 0, controlAccessed: 0, controlMissed: 0 };
  for (const t of totals) {
    out.managedAccessed += t.managedAccessed;
    out.managedMissed += t.managedMissed;
    out.controlAccessed += t.controlAccessed;
    out.controlMissed += t.controlMissed;
  }
  return out;
};

/** Buckets with any access: an empty bucket leaves nothing out, and counting it would shrink the variance. */
export function usedBuckets(buckets: readonly GroupTotals[]): GroupTotals[] {
  return buckets.filter((b) => b.managedAccessed + b.controlAccessed > 0);
}

/**
 * The jackknife interval around `estimate` over `buckets` (each with accesses); null when a
 * leave-one-out has no accesses in one group (a bucket held all of it: no ratio to compare).
 */
export function bucketJackknife(buckets: readonly GroupTotals[], estimate: number, confidence: number): JackknifeInterval | null {
  const g = buckets.length;
  if (g < 2) return null;
  const all = sum(buckets);
  const leftOut: number[] = [];
  for (const bucket of buckets) {
    const rest = {
      managedAccessed: all.managedAccessed - bucket.managedAccessed,
      managedMissed: all.managedMissed - bucket.managedMissed,
      controlAccessed: all.controlAccessed - bucket.controlAccessed,
      controlMissed: all.controlMissed - bucket.controlMissed,
    };
    if (rest.managedAccessed <= 0 || rest.controlAccessed <= 0) return null;
    leftOut.push(missRatioDifference(rest));
  }
  const mean = leftOut.reduce((total, value) => total + value, 0) / g;
  const squares = leftOut.reduce((total, value) => total + (value - mean) ** 2, 0);
  const standardError = Math.sqrt(((g - 1) / g) * squares);
  const half = studentTCritical(1 - confidence, g - 1) * standardError;
  return { low: estimate - half, high: estimate + half, confidence, buckets: g, degreesOfFreedom: g - 1, standardError };
}
