// Percentiles from the merged log2 buckets of disk_latency (docs/metrics.md): counts are added
// first, then the nearest-rank bucket is read, as packages/domain/src/metrics/latency.ts does.
// A percentile is drawn as its bucket's upper edge, 2^NN µs (the lower edge, 2^26 µs, for the open
// last bucket), so a chart never claims more precision than the histogram has.

const buckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);

/** ARRAY[sum(bucket_00), …, sum(bucket_27)]: the histogram of every row in the group. */
export const mergedCounts = `ARRAY[${buckets.map((b) => `sum(${b})`).join(", ")}]::bigint[]`;

/** The quantile's bucket edge in milliseconds, from `counts` (bigint[28]) and `total`. */
export function percentileEdgeMs(counts, total, quantile) {
  return `(SELECT power(2, least(i - 1, 26)) / 1000.0 FROM generate_subscripts(${counts}, 1) AS i
    WHERE (SELECT sum(c) FROM unnest(${counts}[1:i]) AS c) >= ceil(${quantile} * ${total}) ORDER BY i LIMIT 1)`;
}

export const quantiles = [
  ["p50", 0.5],
  ["p95", 0.95],
  ["p99", 0.99],
  ["p99.9", 0.999],
];
