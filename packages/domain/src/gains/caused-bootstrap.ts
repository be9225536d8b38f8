// The interval of the miss-ratio difference (control − managed) by a moving-block bootstrap over
// the units in time order: each resample strings together ⌈n / L⌉ blocks of L consecutive units,
// each starting anywhere a whole block fits, cut to n units, and takes the difference of the two
// ratios of sums. Blocks keep the dependence between neighbouring intervals that resampling
// single units would break (which would make the interval too narrow). Units are paired: a
// resampled interval brings both groups' counters, so what moves both (a backup, a busy hour)
// moves both ratios together. Seeded, so the same data always gives the same interval.
import { seededRandom } from "../stats/random.js";
import { groupTotals, missRatioDifference, type HoldoutUnit } from "./caused-units.js";

export interface BlockBootstrapOptions {
  blockLength: number;
  iterations: number;
  confidence: number;
  seed: number;
}

export interface DifferenceInterval {
  low: number;
  high: number;
  /** Resamples that had control and managed accesses (the others have no ratio and are left out). */
  iterations: number;
  confidence: number;
  blockLength: number;
  seed: number;
}

/** Nearest-rank percentile of sorted values, q in [0, 1]. */
function percentile(sorted: readonly number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

/** One resample: ⌈n / L⌉ blocks of L consecutive units with uniform starts in [0, n − L], cut to n. */
export function resampleHoldoutBlocks<T>(units: readonly T[], blockLength: number, random: () => number): T[] {
  const n = units.length;
  const length = Math.max(1, Math.min(blockLength, n));
  const out: T[] = [];
  while (out.length < n) {
    const start = Math.floor(random() * (n - length + 1));
    for (let i = start; i < start + length && out.length < n; i++) out.push(units[i]!);
  }
  return out;
}

export function holdoutBlockBootstrap(units: readonly HoldoutUnit[], options: BlockBootstrapOptions): DifferenceInterval {
  if (units.length === 0) throw new Error("the block bootstrap needs units");
  const random = seededRandom(options.seed);
  const differences: number[] = [];
  for (let i = 0; i < options.iterations; i++) {
    const totals = groupTotals(resampleHoldoutBlocks(units, options.blockLength, random));
    if (totals.controlAccessed > 0 && totals.managedAccessed > 0) differences.push(missRatioDifference(totals));
  }
  if (differences.length === 0) throw new Error("no resample had accesses in both groups");
  differences.sort((a, b) => a - b);
  const tail = (1 - options.confidence) / 2;
  return {
    low: percentile(differences, tail),
    high: percentile(differences, 1 - tail),
    iterations: differences.length,
    confidence: options.confidence,
    blockLength: Math.max(1, Math.min(options.blockLength, units.length)),
    seed: options.seed,
  };
}
