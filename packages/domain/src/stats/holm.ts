// Holm's step-down correction: several metrics judged on the same change would, tested one by one
// at 5 % each, call some change in one of them far more often than 5 % of the time. Holm keeps the
// chance of any false call at alpha and never rejects less than Bonferroni does.

export interface HolmDecision {
  /** Significant after the correction. */
  rejected: boolean;
  /** Holm-adjusted p-value: the smallest family-wise alpha at which this test would reject. */
  adjustedP: number;
  /**
   * The level this test was judged at (alpha / (m − rank + 1) at its step, or the level of the
   * step where the procedure stopped). An interval at 1 − testedAlpha excludes the null exactly
   * when `rejected`, so the interval shown always agrees with the answer.
   */
  testedAlpha: number;
}

/** Decisions in the order of `pValues`. */
export function holm(pValues: readonly number[], alpha: number): HolmDecision[] {
  const m = pValues.length;
  const order = pValues.map((p, index) => ({ p, index })).sort((a, b) => a.p - b.p || a.index - b.index);
  const decisions: HolmDecision[] = new Array(m);
  let stopped = false;
  let stopAlpha = alpha;
  let runningMax = 0;
  order.forEach(({ p, index }, rank) => {
    const stepAlpha = alpha / (m - rank);
    runningMax = Math.max(runningMax, Math.min(1, (m - rank) * p));
    if (!stopped && p > stepAlpha) {
      stopped = true;
      stopAlpha = stepAlpha;
    }
    decisions[index] = { rejected: !stopped, adjustedP: runningMax, testedAlpha: stopped ? stopAlpha : stepAlpha };
  });
  return decisions;
}
