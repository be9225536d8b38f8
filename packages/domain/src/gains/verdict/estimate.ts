// The common shape of the three comparisons: an estimate of the change on its scale, a standard
// error and degrees of freedom, from which the p-value and an interval at any level follow. Holm's
// correction decides the level only after every metric's p-value is known, so the interval is
// drawn from this at the end, never fixed by the method.
import { studentTTwoSidedP, tInterval } from "../../stats/student-t.js";
import type { Scale } from "./window-sums.js";

export interface ScaleEstimate {
  scale: Scale;
  /** After minus expected, on the scale (a log ratio or a difference). */
  estimate: number;
  standardError: number;
  degreesOfFreedom: number;
}

export function pValueOf(estimate: ScaleEstimate): number {
  if (estimate.standardError === 0) return estimate.estimate === 0 ? 1 : 0;
  return studentTTwoSidedP(estimate.estimate / estimate.standardError, estimate.degreesOfFreedom);
}

/** The interval at `confidence`, on the scale. */
export function intervalOf(estimate: ScaleEstimate, confidence: number): { low: number; high: number } {
  if (estimate.standardError === 0) return { low: estimate.estimate, high: estimate.estimate };
  return tInterval(estimate.estimate, estimate.standardError, estimate.degreesOfFreedom, confidence);
}
