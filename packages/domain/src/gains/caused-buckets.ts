// The interval of the miss-ratio difference (control − managed) from the agent's hash buckets.
//
// The agent hashes every page group a second time, independently of the control draw, into one of
// 16 buckets and counts both groups' accesses and misses per bucket over the range
// (spindle_holdout.h). The estimate's error comes from which page groups the draw put in the
// control (groups differ in heat and miss ratio) and from what each group did over the range;
// both sit in how far each group's misses lie from what the pooled miss ratio gives its accesses,
// its residual e = x − R·a. Under the draw (a random share p of the groups in the control),
// with E_c the control's summed residuals,
//
//   θ − θ_true ≈ E_c × (1 / A_c + 1 / A_m),   Var(E_c) = N·p·(1 − p)·σ²
//
// σ², the residuals' variance over the page groups, is measured where the groups are many: in
// the managed buckets (the control's when more than half is held out), each a random sixteenth of the managed groups, whose summed residuals r_b
// vary by Var(r_b) ≈ N·(1 − p)/G·σ². So Var(E_c) ≈ p·G·s², with s² the r_b's sample variance:
// a random-groups variance over the buckets. It does not rest on the control's own few groups,
// which in most draws hold none of the hottest, least-missing ones (and then look less variable
// than the population is): the managed groups stand for every group the draw could have chosen.
// The interval is Student-t on G − 1 degrees of freedom around the estimate.
import { studentTCritical } from "../stats/student-t.js";
import type { GroupTotals } from "./caused-units.js";

/** Buckets the agent hashes page groups into (spindle_holdout.h HOLDOUT_BUCKETS). */
export const holdoutBuckets = 16;

export interface BucketInterval {
  low: number;
  high: number;
  confidence: number;
  /** Buckets that had accesses, and the degrees of freedom of the t quantile (buckets − 1). */
  buckets: number;
  degreesOfFreedom: number;
  standardError: number;
}

/** Buckets with any access: an empty bucket holds no page group read in the range. */
export function usedBuckets(buckets: readonly GroupTotals[]): GroupTotals[] {
  return buckets.filter((b) => b.managedAccessed + b.controlAccessed > 0);
}

/**
 * The interval around `estimate` (a miss-ratio difference) over `buckets` (each with accesses),
 * for a control drawn with `holdoutShare` of the page groups; null without accesses in a group.
 */
export function bucketInterval(
  buckets: readonly GroupTotals[],
  estimate: number,
  holdoutShare: number,
  confidence: number,
): BucketInterval | null {
  const g = buckets.length;
  const sum = (pick: (b: GroupTotals) => number) => buckets.reduce((total, b) => total + pick(b), 0);
  const managedAccessed = sum((b) => b.managedAccessed);
  const controlAccessed = sum((b) => b.controlAccessed);
  if (g < 2 || managedAccessed <= 0 || controlAccessed <= 0) return null;
  // σ² from the larger side (the managed one unless more than half is held out): its groups are
  // the many that stand for the population. Var(E_c) = p·G·s² from the managed side,
  // (1 − p)·G·s² from the control.
  const fromManaged = holdoutShare <= 0.5;
  const accessed = (b: GroupTotals) => (fromManaged ? b.managedAccessed : b.controlAccessed);
  const missed = (b: GroupTotals) => (fromManaged ? b.managedMissed : b.controlMissed);
  const ratio = sum(missed) / sum(accessed);
  // The residuals sum to 0, so their mean is 0.
  const squares = buckets.reduce((total, b) => total + (missed(b) - ratio * accessed(b)) ** 2, 0);
  const controlResidualVariance = (fromManaged ? holdoutShare : 1 - holdoutShare) * g * (squares / (g - 1));
  const standardError = Math.sqrt(controlResidualVariance) * (1 / controlAccessed + 1 / managedAccessed);
  const half = studentTCritical(1 - confidence, g - 1) * standardError;
  return { low: estimate - half, high: estimate + half, confidence, buckets: g, degreesOfFreedom: g - 1, standardError };
}
