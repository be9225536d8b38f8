// A circular moving-block bootstrap of a ratio of sums (Σ numerator / Σ denominator over 1-minute
// units). Blocks of consecutive minutes keep the autocorrelation inside each resample, so the
// spread of the resampled ratios reflects how persistent the series is; resampling single
// minutes (the old verdict) pretends they are independent. Prefix sums make each block O(1).

import { integratedAutocorrelationTime } from "./autocorrelation.js";
import type { RatioUnit } from "./ratio.js";

export interface BlockSeries {
  units: readonly RatioUnit[];
  ratio: number;
  /** Integrated autocorrelation time of the units' linearised ratio, in units. */
  autocorrelationTime: number;
  /** units / autocorrelationTime. */
  effectiveSampleSize: number;
  blockLength: number;
}

/**
 * The units' ratio with its autocorrelation. The series whose persistence matters is each unit's
 * contribution to the ratio, (numerator − ratio × denominator) / mean denominator: a busy minute
 * counts as much as its I/Os do.
 */
export function describeBlockSeries(units: readonly RatioUnit[], blockAutocorrelationTimes = 2): BlockSeries {
  let numerator = 0;
  let denominator = 0;
  for (const unit of units) {
    numerator += unit.numerator;
    denominator += unit.denominator;
  }
  const ratio = numerator / denominator;
  const meanDenominator = denominator / units.length;
  const linearised = units.map((unit) => (unit.numerator - ratio * unit.denominator) / meanDenominator);
  const autocorrelationTime = integratedAutocorrelationTime(linearised);
  // Blocks a few autocorrelation times long (at least the cube root of n, the usual rate), so the
  // correlation a block cuts at its edges is small against what it keeps.
  const blockLength = Math.max(
    1,
    Math.min(Math.floor(units.length / 2), Math.ceil(Math.max(Math.cbrt(units.length), blockAutocorrelationTimes * autocorrelationTime))),
  );
  return { units, ratio, autocorrelationTime, effectiveSampleSize: units.length / autocorrelationTime, blockLength };
}

/** Draws `iterations` resampled ratios of one series. */
export function resampleRatios(series: BlockSeries, iterations: number, random: () => number): Float64Array {
  const { units, blockLength } = series;
  const n = units.length;
  // Prefix sums over the series repeated twice, so a block may wrap around the end.
  const prefixNumerator = new Float64Array(2 * n + 1);
  const prefixDenominator = new Float64Array(2 * n + 1);
  for (let i = 0; i < 2 * n; i++) {
    const unit = units[i % n]!;
    prefixNumerator[i + 1] = prefixNumerator[i]! + unit.numerator;
    prefixDenominator[i + 1] = prefixDenominator[i]! + unit.denominator;
  }
  const blocks = Math.ceil(n / blockLength);
  const lastLength = n - (blocks - 1) * blockLength; // every resample is exactly n units long
  const ratios = new Float64Array(iterations);
  for (let r = 0; r < iterations; r++) {
    let numerator = 0;
    let denominator = 0;
    for (let b = 0; b < blocks; b++) {
      const start = Math.floor(random() * n);
      const end = start + (b === blocks - 1 ? lastLength : blockLength);
      numerator += prefixNumerator[end]! - prefixNumerator[start]!;
      denominator += prefixDenominator[end]! - prefixDenominator[start]!;
    }
    ratios[r] = numerator / denominator;
  }
  return ratios;
}

/** Sample standard deviation. */
export function standardDeviation(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return NaN;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i]!;
  mean /= n;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (values[i]! - mean) ** 2;
  return Math.sqrt(sum / (n - 1));
}
