// Percentile bootstrap of the difference of two ratio-of-sums metrics (after − before). Each
// window is a set of units (one per agent interval or aggregate bucket), each with a numerator and
// a denominator (e.g. latency seconds and reads). A resample draws units with replacement within
// each window and takes Σnumerator / Σdenominator, so a busy minute weighs as much as its I/Os.
// The generator is seeded, so the same data and seed always give the same interval.

export interface RatioUnit {
  numerator: number;
  denominator: number;
}

/** mulberry32: a small, well-mixed 32-bit generator; uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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

function resampledRatio(units: readonly RatioUnit[], random: () => number): number {
  let numerator = 0;
  let denominator = 0;
  for (let i = 0; i < units.length; i++) {
    const unit = units[Math.floor(random() * units.length)]!;
    numerator += unit.numerator;
    denominator += unit.denominator;
  }
  return numerator / denominator;
}

/** Nearest-rank percentile of sorted values, q in [0, 1]. */
function percentile(sorted: readonly number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

export interface BootstrapInterval {
  low: number;
  high: number;
  iterations: number;
  confidence: number;
}

/**
 * The `confidence` (e.g. 0.95) interval of ratio(after) − ratio(before). Every unit must have a
 * positive denominator (units without I/O carry no information and are dropped by the caller).
 */
export function bootstrapDifference(
  before: readonly RatioUnit[],
  after: readonly RatioUnit[],
  options: { seed: number; iterations: number; confidence: number },
): BootstrapInterval {
  if (before.length === 0 || after.length === 0) throw new Error("bootstrap needs units on both sides");
  const random = seededRandom(options.seed);
  const differences: number[] = [];
  for (let i = 0; i < options.iterations; i++) {
    differences.push(resampledRatio(after, random) - resampledRatio(before, random));
  }
  differences.sort((a, b) => a - b);
  const tail = (1 - options.confidence) / 2;
  return { low: percentile(differences, tail), high: percentile(differences, 1 - tail), iterations: options.iterations, confidence: options.confidence };
}
