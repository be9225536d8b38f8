// How many independent observations a series of 1-minute values is worth. Storage latency stays
// high for a while once high, so 60 correlated minutes can carry the information of a handful;
// treating them as 60 is what made the old verdict call unchanged servers better or worse.

/**
 * Integrated autocorrelation time τ (1 for independent values) by Geyer's initial positive
 * sequence: autocorrelations are summed in adjacent pairs while the pair sums stay positive and
 * decreasing, which cuts the sum off before noise dominates. The effective sample size is n / τ.
 */
export function integratedAutocorrelationTime(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 4) return 1;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i]!;
  mean /= n;
  const centred = new Float64Array(n);
  for (let i = 0; i < n; i++) centred[i] = values[i]! - mean;
  const autocovariance = (lag: number) => {
    let sum = 0;
    for (let i = 0; i + lag < n; i++) sum += centred[i]! * centred[i + lag]!;
    return sum / n;
  };
  const variance = autocovariance(0);
  if (!(variance > 0)) return 1;
  let sum = 0;
  let previousPair = Infinity;
  for (let lag = 0; lag + 1 < n / 2; lag += 2) {
    const pair = Math.min(previousPair, (autocovariance(lag) + autocovariance(lag + 1)) / variance);
    if (!(pair > 0)) break;
    sum += pair;
    previousPair = pair;
  }
  return Math.max(1, 2 * sum - 1);
}

export function effectiveSampleSize(values: ArrayLike<number>): number {
  return values.length / integratedAutocorrelationTime(values);
}
