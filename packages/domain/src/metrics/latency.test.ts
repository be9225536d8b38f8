import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeLatencyPercentile, latencyBucketCount, latencyPercentile, mergeLatencyBuckets, percentileEdgeMs } from "./latency.js";
import { bufferHitRatioPercent, cacheHitRatioPercent } from "./ratios.js";

/** A 28-bucket vector with the given counts at the given bucket indexes. */
function histogram(counts: Record<number, number>): number[] {
  const buckets = new Array<number>(latencyBucketCount).fill(0);
  for (const [bucket, count] of Object.entries(counts)) buckets[Number(bucket)] = count;
  return buckets;
}

describe("latency percentiles from log2 buckets", () => {
  it("finds the bucket of each percentile by nearest rank and reports its exact edges", () => {
    // 100 I/Os: 50 in (64, 128] µs, 45 in (1.024, 2.048] ms, 4 in (8.192, 16.384] ms, 1 above 67 s.
    const buckets = histogram({ 7: 50, 11: 45, 14: 4, 27: 1 });
    assert.deepEqual(latencyPercentile(buckets, 0.5), { bucket: 7, lowerSeconds: 0.000064, upperSeconds: 0.000128 });
    assert.deepEqual(latencyPercentile(buckets, 0.51), { bucket: 11, lowerSeconds: 0.001024, upperSeconds: 0.002048 });
    assert.deepEqual(latencyPercentile(buckets, 0.95), { bucket: 11, lowerSeconds: 0.001024, upperSeconds: 0.002048 });
    assert.deepEqual(latencyPercentile(buckets, 0.99), { bucket: 14, lowerSeconds: 0.008192, upperSeconds: 0.016384 });
    assert.deepEqual(latencyPercentile(buckets, 1), { bucket: 27, lowerSeconds: 67.108864, upperSeconds: null });
  });

  it("treats bucket 0 as (0, 1 µs]", () => {
    assert.deepEqual(latencyPercentile(histogram({ 0: 3 }), 0.99), { bucket: 0, lowerSeconds: 0, upperSeconds: 0.000001 });
  });

  it("merges bucket counts before reading percentiles, which averaging percentiles gets wrong", () => {
    // A quiet minute: 10 I/Os in (0.5, 1] ms (p99 ≤ 1.024 ms). A busy minute: 990 I/Os, 900 in
    // (4.096, 8.192] ms and 90 in (32.768, 65.536] ms (p99 ≤ 65.536 ms).
    const quiet = histogram({ 10: 10 });
    const busy = histogram({ 13: 900, 16: 90 });
    const merged = mergeLatencyBuckets([quiet, busy]);
    assert.equal(merged[13], 900);
    // Rank 990 of 1,000 lies in bucket 16: the range's p99 is ≤ 65.536 ms, not the mean of the two p99s (33.3 ms).
    assert.equal(percentileEdgeMs(latencyPercentile(merged, 0.99)), 65.536);
    assert.equal(percentileEdgeMs(latencyPercentile(merged, 0.5)), 8.192);
  });

  it("returns null for an empty range and refuses a vector of the wrong length", () => {
    assert.equal(latencyPercentile(histogram({}), 0.5), null);
    assert.equal(percentileEdgeMs(null), null);
    assert.throws(() => latencyPercentile([1, 2, 3], 0.5), /28 buckets/);
    assert.throws(() => latencyPercentile(histogram({ 1: 1 }), 0), /not in \(0, 1\]/);
  });

  it("says how precise the answer is", () => {
    assert.equal(describeLatencyPercentile(latencyPercentile(histogram({ 11: 1 }), 0.5)), "≤ 2.048 ms");
    assert.equal(describeLatencyPercentile(latencyPercentile(histogram({ 7: 1 }), 0.5)), "≤ 128 µs");
    assert.equal(describeLatencyPercentile(latencyPercentile(histogram({ 20: 1 }), 0.5)), "≤ 1.049 s");
    assert.equal(describeLatencyPercentile(latencyPercentile(histogram({ 27: 1 }), 0.5)), "> 67.11 s");
    assert.equal(describeLatencyPercentile(null), "no I/O");
  });
});

describe("hit ratios", () => {
  it("computes the page-cache and buffer hit ratios from sums, null when nothing was read", () => {
    assert.equal(cacheHitRatioPercent(1000, 40), 96);
    assert.equal(cacheHitRatioPercent(0, 0), null);
    assert.equal(bufferHitRatioPercent(9900, 100), 99);
    assert.equal(bufferHitRatioPercent(0, 0), null);
  });
});
