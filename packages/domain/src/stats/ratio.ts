// A ratio of sums, the shape of every per-I/O cost Spindle judges: Σ latency seconds / Σ reads,
// Σ misses / Σ accesses. Summing first weighs a busy minute as its I/Os do; an average of
// per-minute ratios would not.

export interface RatioUnit {
  numerator: number;
  denominator: number;
}

export function ratioOfSums(units: readonly RatioUnit[]): number {
  let numerator = 0;
  let denominator = 0;
  for (const unit of units) {
    numerator += unit.numerator;
    denominator += unit.denominator;
  }
  return numerator / denominator;
}
