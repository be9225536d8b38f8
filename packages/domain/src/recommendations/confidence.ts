// How much a curve-based prediction can be trusted, from the sample it rests on. SHARDS at a 1 %
// sampling rate stays within about 0.01 of the exact curve once the sample holds tens of
// thousands of accesses (Waldspurger et al., FAST 2015; docs/benchmarks.md measures ours); the
// tolerances below leave room for the workload itself moving between two windows.
import type { Confidence } from "./types.js";

/** Fewer sampled accesses than this and a curve recommends nothing. */
export const minimumSampledAccesses = 1_000;

const levels = [
  { level: "high", minimum: 100_000, tolerance: 0.03 },
  { level: "medium", minimum: 10_000, tolerance: 0.05 },
  { level: "low", minimum: minimumSampledAccesses, tolerance: 0.1 },
] as const;

/**
 * Confidence in a hit ratio read from a curve of `sampledAccesses`. `indirect` when the curve
 * describes a wider stream than the one the change acts on (the whole page cache standing in
 * for the read cache's scope): one level lower.
 */
export function curveConfidence(sampledAccesses: number, indirect: boolean): Confidence | null {
  const index = levels.findIndex((entry) => sampledAccesses >= entry.minimum);
  if (index < 0) return null;
  const chosen = levels[Math.min(levels.length - 1, index + (indirect ? 1 : 0))]!;
  const sample = `${Math.round(sampledAccesses).toLocaleString("en-US")} sampled accesses`;
  return {
    level: chosen.level,
    tolerance: chosen.tolerance,
    reason: indirect
      ? `${sample} on the whole page cache's curve, standing in for the read cache's own: realised within ±${chosen.tolerance * 100} points`
      : `${sample} on the curve: realised within ±${chosen.tolerance * 100} points`,
  };
}
