import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AlertCondition } from "./schema.js";
import { findAlertSignal, latencyBucketColumns } from "./signals.js";
import { compareReading, observeRule, type SourceRow } from "./observe.js";

const at = Date.parse("2026-11-20T10:05:00Z");
const minute = (hhmm: string) => Date.parse(`2026-11-20T${hhmm}:00Z`);
const condition = (over: Partial<AlertCondition>): AlertCondition => ({
  signal: "disk.utilisation",
  aggregation: "avg",
  comparison: ">",
  threshold: 80,
  windowSeconds: 300,
  forSeconds: 0,
  resolveSeconds: 0,
  noDataSeconds: 600,
  ...over,
});
const disk = (start: string, ioTimeMs: number): SourceRow => ({
  start: minute(start),
  sums: { interval_seconds: 60, io_time_ms: ioTimeMs },
});

function latencyRow(start: string, counts: Record<number, number>): SourceRow {
  const sums: Record<string, number> = { operations: 0, sum_seconds: 0 };
  latencyBucketColumns.forEach((c, i) => {
    sums[c] = counts[i] ?? 0;
    sums.operations! += counts[i] ?? 0;
  });
  return { start: minute(start), sums };
}

describe("observeRule", () => {
  const utilisation = findAlertSignal("disk.utilisation")!;

  it("averages the buckets that start within the window, from sums", () => {
    // Window [10:00, 10:05): 10:00..10:04. 09:59 (100 %) and 10:05 (100 %) are outside.
    const rows = [
      disk("09:59", 60_000),
      disk("10:00", 54_000),
      disk("10:01", 54_000),
      disk("10:02", 54_000),
      disk("10:03", 54_000),
      disk("10:04", 54_000),
      disk("10:05", 60_000),
    ];
    // 5 × 54 s busy of 300 s = 90 %.
    assert.deepEqual(observeRule(utilisation, condition({}), rows, at), { observation: "breach", value: 90 });
    assert.deepEqual(observeRule(utilisation, condition({ threshold: 90 }), rows, at), { observation: "clear", value: 90 });
    assert.deepEqual(observeRule(utilisation, condition({ comparison: ">=", threshold: 90 }), rows, at), {
      observation: "breach",
      value: 90,
    });
  });

  it("takes max and min over the minutes", () => {
    const rows = [disk("10:01", 6_000), disk("10:02", 57_000), disk("10:03", 30_000)];
    assert.equal(observeRule(utilisation, condition({ aggregation: "max" }), rows, at).value, 95);
    assert.equal(
      observeRule(utilisation, condition({ aggregation: "min", comparison: "<", threshold: 20 }), rows, at).observation,
      "breach",
    );
  });

  it("tells grace from no data by the age of the newest bucket", () => {
    const rows = [disk("09:50", 1_000)]; // data up to 09:51
    assert.equal(observeRule(utilisation, condition({}), rows, Date.parse("2026-11-20T09:58:00Z")).observation, "grace"); // 7 min silent
    assert.equal(observeRule(utilisation, condition({}), rows, at).observation, "no_data"); // 14 min silent
    assert.equal(observeRule(utilisation, condition({}), [], at).observation, "no_data");
  });

  it("reads a p99 latency from merged buckets and compares its certain edge", () => {
    const read = findAlertSignal("disk.read_latency")!;
    // 985 reads in bucket 10 ((0.512, 1.024] ms) and 15 in bucket 18 ((131.072, 262.144] ms),
    // spread over two minutes: rank ceil(0.99 × 1000) = 990 falls in bucket 18.
    const rows = [latencyRow("10:01", { 10: 500, 18: 5 }), latencyRow("10:02", { 10: 485, 18: 10 })];
    const p99 = condition({ signal: "disk.read_latency", aggregation: "p99", threshold: 100 });
    assert.deepEqual(observeRule(read, p99, rows, at), { observation: "breach", value: 131.072 });
    // 200 ms lies inside the bucket: the p99 may be below it, so no alert.
    assert.deepEqual(observeRule(read, { ...p99, threshold: 200 }, rows, at), { observation: "clear", value: 131.072 });
    // "<" compares the upper edge.
    assert.deepEqual(observeRule(read, { ...p99, comparison: "<", threshold: 300 }, rows, at), { observation: "breach", value: 262.144 });
    // The p50 is in bucket 10.
    assert.equal(observeRule(read, { ...p99, aggregation: "p50", threshold: 1 }, rows, at).value, 0.512);
  });

  it("treats too little activity as clear, not as no data", () => {
    const read = findAlertSignal("disk.read_latency")!;
    const rows = [latencyRow("10:01", { 20: 99 })]; // 99 reads, all slow: below the 100-read minimum
    assert.deepEqual(observeRule(read, condition({ signal: "disk.read_latency", aggregation: "p99", threshold: 1 }), rows, at), {
      observation: "clear",
      value: null,
    });
  });

  it("computes the split share and page-cache hit ratio from sums", () => {
    const split = findAlertSignal("disk.split_io_share")!;
    const rows: SourceRow[] = [
      { start: minute("10:01"), sums: { interval_seconds: 60, split_ops: 300, operations: 1000 } },
      { start: minute("10:02"), sums: { interval_seconds: 60, split_ops: 100, operations: 1000 } },
    ];
    // 400 split of 2,000 I/Os = 20 %.
    assert.deepEqual(observeRule(split, condition({ signal: split.id, threshold: 15 }), rows, at), { observation: "breach", value: 20 });
    const cache = findAlertSignal("page_cache.hit_ratio")!;
    const cacheRows: SourceRow[] = [{ start: minute("10:03"), sums: { interval_seconds: 60, accesses: 20_000, misses: 12_000 } }];
    assert.deepEqual(observeRule(cache, condition({ signal: cache.id, comparison: "<", threshold: 50 }), cacheRows, at), {
      observation: "breach",
      value: 40,
    });
  });

  it("compares exact readings on both edges alike", () => {
    assert.deepEqual(compareReading({ low: 5, high: 5 }, "<=", 5), { breach: true, value: 5 });
    assert.deepEqual(compareReading({ low: 67_108.864, high: Infinity }, "<", 100_000), { breach: false, value: 67_108.864 });
  });
});
