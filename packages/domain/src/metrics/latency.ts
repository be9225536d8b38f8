// Latency percentiles from the log2 histogram of spindle.disk.io.latency (docs/metrics.md).
// Buckets from any number of samples are merged by adding counts, then the percentile is read
// from the merged counts: exact to the bucket, and never an average of percentiles. The answer
// is a bucket, not a number: the true value lies somewhere in (lower, upper].
import { diskLatencyBoundsSeconds } from "./catalogue.js";

/** 27 explicit bounds make 28 buckets; the last holds everything above 2^26 µs (67 s). */
export const latencyBucketCount = diskLatencyBoundsSeconds.length + 1;

export interface LatencyPercentile {
  /** Index of the bucket the percentile falls in. */
  bucket: number;
  /** The bucket's lower edge in seconds (exclusive); 0 for the first bucket. */
  lowerSeconds: number;
  /** The bucket's upper edge in seconds (inclusive); null for the open last bucket. */
  upperSeconds: number | null;
}

/** Adds bucket counts, e.g. the samples of a range, into one histogram. */
export function mergeLatencyBuckets(histograms: readonly (readonly number[])[]): number[] {
  const merged = new Array<number>(latencyBucketCount).fill(0);
  for (const counts of histograms) {
    if (counts.length !== latencyBucketCount)
      throw new Error(`a latency histogram has ${latencyBucketCount} buckets, not ${counts.length}`);
    for (const [i, count] of counts.entries()) merged[i]! += count;
  }
  return merged;
}

/**
 * The bucket holding the `quantile` (0 < q ≤ 1) of the I/Os: the first bucket whose cumulative
 * count reaches ceil(q × total), the nearest-rank definition. null when no I/O was counted.
 */
export function latencyPercentile(buckets: readonly number[], quantile: number): LatencyPercentile | null {
  if (!(quantile > 0 && quantile <= 1)) throw new Error(`quantile ${quantile} is not in (0, 1]`);
  if (buckets.length !== latencyBucketCount)
    throw new Error(`a latency histogram has ${latencyBucketCount} buckets, not ${buckets.length}`);
  const total = buckets.reduce((sum, count) => sum + count, 0);
  if (total <= 0) return null;
  const rank = Math.ceil(quantile * total);
  let cumulative = 0;
  for (let bucket = 0; bucket < buckets.length; bucket++) {
    cumulative += buckets[bucket]!;
    if (cumulative >= rank) {
      return {
        bucket,
        lowerSeconds: bucket === 0 ? 0 : diskLatencyBoundsSeconds[bucket - 1]!,
        upperSeconds: diskLatencyBoundsSeconds[bucket] ?? null,
      };
    }
  }
  return null; // unreachable: the cumulative count reaches the total
}

/** The value a chart draws for a percentile: the bucket's upper edge in milliseconds (the lower edge for the open last bucket). */
export function percentileEdgeMs(percentile: LatencyPercentile | null): number | null {
  if (percentile === null) return null;
  return (percentile.upperSeconds ?? percentile.lowerSeconds) * 1000;
}

function formatSeconds(seconds: number): string {
  if (seconds >= 1) return `${Number(seconds.toPrecision(4))} s`;
  if (seconds >= 1e-3) return `${Number((seconds * 1e3).toPrecision(4))} ms`;
  return `${Number((seconds * 1e6).toPrecision(4))} µs`;
}

/** How precise a percentile is, honestly: "≤ 2.048 ms", or "> 67.11 s" for the open last bucket. */
export function describeLatencyPercentile(percentile: LatencyPercentile | null): string {
  if (percentile === null) return "no I/O";
  return percentile.upperSeconds === null ? `> ${formatSeconds(percentile.lowerSeconds)}` : `≤ ${formatSeconds(percentile.upperSeconds)}`;
}
