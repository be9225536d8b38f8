import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bucketJackknife, usedBuckets } from "./caused-jackknife.js";
import { causedReadsSaved } from "./caused-reads.js";
import type { HoldoutBucketCounts, HoldoutSums, HoldoutUnit } from "./caused-units.js";
import { describeMeasured } from "./measured.js";
import { studentTCritical } from "../stats/student-t.js";

const page = 4096;
const totals = (managed: [number, number], control: [number, number]) => ({
  managedAccessed: managed[0], managedMissed: managed[1], controlAccessed: control[0], controlMissed: control[1],
});

describe("bucketJackknife", () => {
  it("gives the delete-one variance by hand on three buckets, Student-t on 2 df", () => {
    // Buckets: (m 100/10, c 10/3), (m 100/20, c 10/2), (m 100/30, c 10/4). All: m 300/60, c 30/9.
    // Leave one out: θ₋₁ = 6/20 − 50/200 = 0.05, θ₋₂ = 7/20 − 40/200 = 0.15, θ₋₃ = 5/20 − 30/200 = 0.10.
    // Mean 0.10; Σ(θ − mean)² = 0.005; variance 2/3 × 0.005; the estimate θ = 0.3 − 0.2 = 0.1.
    const buckets = [totals([100, 10], [10, 3]), totals([100, 20], [10, 2]), totals([100, 30], [10, 4])];
    const interval = bucketJackknife(buckets, 0.1, 0.95);
    assert.ok(interval);
    const se = Math.sqrt((2 / 3) * 0.005);
    assert.ok(Math.abs(interval.standardError - se) < 1e-12, `${interval.standardError}`);
    assert.equal(interval.degreesOfFreedom, 2);
    // t(0.975, 2) = 4.303
    assert.ok(Math.abs(studentTCritical(0.05, 2) - 4.302653) < 1e-5);
    assert.ok(Math.abs(interval.low - (0.1 - 4.302653 * se)) < 1e-5 && Math.abs(interval.high - (0.1 + 4.302653 * se)) < 1e-5);
  });

  it("has no interval when leaving a bucket out leaves a group with no accesses", () => {
    assert.equal(bucketJackknife([totals([100, 10], [10, 3]), totals([100, 10], [0, 0])], 0, 0.95), null);
  });

  it("counts only the buckets with accesses", () => {
    assert.equal(usedBuckets([totals([0, 0], [0, 0]), totals([1, 0], [0, 0])]).length, 1);
  });
});

/** 20 equal intervals whose totals are the buckets' sums; the buckets carry the spread. */
function sumsWithBuckets(buckets: Array<[[number, number], [number, number]]>, intervals = 20): HoldoutSums {
  const sum = (pick: (b: [[number, number], [number, number]]) => number) => buckets.reduce((total, b) => total + pick(b), 0);
  const unit: HoldoutUnit = {
    holdoutShare: 0.1,
    managedAccessedBytes: (sum((b) => b[0][0]) / 20) * page,
    managedMissedBytes: (sum((b) => b[0][1]) / 20) * page,
    controlAccessedBytes: (sum((b) => b[1][0]) / 20) * page,
    controlMissedBytes: (sum((b) => b[1][1]) / 20) * page,
  };
  const counts: HoldoutBucketCounts[] = buckets.map(([managed, control], bucket) => ({
    bucket, managedAccessedBytes: managed[0] * page, managedMissedBytes: managed[1] * page, controlAccessedBytes: control[0] * page, controlMissedBytes: control[1] * page,
  }));
  return { units: Array.from({ length: 20 }, () => unit), samples: 20, ownReadBytes: null, ownPageHitBytes: null, buckets: { counts, intervals } };
}

describe("causedReadsSaved with hash buckets", () => {
  // Every interval alike (the bootstrap would give a zero-width interval), but the buckets differ:
  // the draw put hotter, less-missing groups in some buckets' controls.
  const buckets = Array.from({ length: 16 }, (_, b): [[number, number], [number, number]] => [[9000, 900], [1000, b % 2 === 0 ? 400 : 200]]);

  it("takes the interval from the jackknife over the buckets, which sees the draw", () => {
    const caused = causedReadsSaved(sumsWithBuckets(buckets));
    assert.equal(caused.status, "measured", describeMeasured(caused));
    if (caused.status !== "measured") return;
    const { interval } = caused.value;
    assert.equal(interval.method, "bucket-jackknife");
    if (interval.method !== "bucket-jackknife") return;
    assert.equal(interval.buckets, 16);
    assert.equal(interval.degreesOfFreedom, 15);
    // Saved: 144,000 × (0.3 − 0.1) = 28,800 pages, and the interval has width now.
    assert.ok(Math.abs(caused.value.savedPages - 28_800) < 1e-6);
    assert.ok(interval.lowPages < 28_800 - 1000 && interval.highPages > 28_800 + 1000, `${interval.lowPages} ${interval.highPages}`);
  });

  it("falls back to the block bootstrap, flagged as omitting the draw's variance, when buckets cover part of the range", () => {
    const caused = causedReadsSaved(sumsWithBuckets(buckets, 12));
    assert.ok(caused.status === "measured" && caused.value.interval.method === "block-bootstrap", describeMeasured(caused));
    assert.equal(caused.value.interval.omitsDrawVariance, true);
    const none = causedReadsSaved({ ...sumsWithBuckets(buckets), buckets: null });
    assert.ok(none.status === "measured" && none.value.interval.method === "block-bootstrap");
  });

  it("is not measured when the page groups fell in too few buckets", () => {
    const caused = causedReadsSaved(sumsWithBuckets(buckets.slice(0, 5)));
    assert.equal(caused.status, "not-measured");
    assert.match(describeMeasured(caused), /page groups fell in 5 of the agent's 16 hash buckets/);
  });
});
