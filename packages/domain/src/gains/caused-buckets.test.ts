import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bucketInterval, usedBuckets } from "./caused-buckets.js";
import { causedReadsSaved } from "./caused-reads.js";
import type { HoldoutBucketCounts, HoldoutSums, HoldoutUnit } from "./caused-units.js";
import { describeMeasured } from "./measured.js";

const page = 4096;
const totals = (managed: [number, number], control: [number, number]) => ({
  managedAccessed: managed[0],
  managedMissed: managed[1],
  controlAccessed: control[0],
  controlMissed: control[1],
});

describe("bucketInterval", () => {
  it("gives the random-groups variance by hand on three buckets, Student-t on 2 df", () => {
    // Managed: 100/10, 100/20, 100/30 (ratio 0.2, residuals −10, 0, 10: s² = 200 / 2 = 100).
    // Control: 10/3, 10/2, 10/4 (A_c = 30). Var(E_c) = p·G·s² = 0.1 × 3 × 100 = 30;
    // SE = √30 × (1/30 + 1/300) = 0.2008316; t(0.975, 2) = 4.302653.
    const buckets = [totals([100, 10], [10, 3]), totals([100, 20], [10, 2]), totals([100, 30], [10, 4])];
    const interval = bucketInterval(buckets, 0.1, 0.1, 0.95);
    assert.ok(interval);
    const se = Math.sqrt(30) * (1 / 30 + 1 / 300);
    assert.ok(Math.abs(interval.standardError - se) < 1e-12, `${interval.standardError}`);
    assert.equal(interval.degreesOfFreedom, 2);
    assert.ok(Math.abs(interval.low - (0.1 - 4.302653 * se)) < 1e-5 && Math.abs(interval.high - (0.1 + 4.302653 * se)) < 1e-5);
  });

  it("takes the spread from the managed groups, not from the control's few", () => {
    // The controls are identical, so they show no spread; the managed buckets do, and the
    // interval has width: the control's groups could have been any of them.
    const buckets = [totals([100, 5], [10, 2]), totals([100, 35], [10, 2]), totals([100, 20], [10, 2]), totals([100, 20], [10, 2])];
    const interval = bucketInterval(buckets, 0, 0.1, 0.95);
    assert.ok(interval && interval.standardError > 0.1, JSON.stringify(interval));
  });

  it("takes the spread from the control when more than half is held out: the mirror image gives the same", () => {
    const buckets = [totals([100, 10], [10, 3]), totals([100, 20], [10, 2]), totals([100, 30], [10, 4])];
    const mirrored = buckets.map((b) => ({
      managedAccessed: b.controlAccessed,
      managedMissed: b.controlMissed,
      controlAccessed: b.managedAccessed,
      controlMissed: b.managedMissed,
    }));
    const low = bucketInterval(buckets, 0.1, 0.1, 0.95)!;
    const high = bucketInterval(mirrored, -0.1, 0.9, 0.95)!;
    assert.ok(Math.abs(low.standardError - high.standardError) < 1e-12, `${low.standardError} ${high.standardError}`);
  });

  it("has no interval without accesses in a group", () => {
    assert.equal(bucketInterval([totals([100, 10], [0, 0]), totals([100, 10], [0, 0])], 0, 0.1, 0.95), null);
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
    bucket,
    managedAccessedBytes: managed[0] * page,
    managedMissedBytes: managed[1] * page,
    controlAccessedBytes: control[0] * page,
    controlMissedBytes: control[1] * page,
  }));
  return {
    units: Array.from({ length: 20 }, () => unit),
    samples: 20,
    ownReadBytes: null,
    ownPageHitBytes: null,
    buckets: { counts, intervals },
  };
}

describe("causedReadsSaved with hash buckets", () => {
  // Every interval alike (the bootstrap would give a zero-width interval), but the buckets differ:
  // some buckets' managed groups miss more than others.
  const buckets = Array.from({ length: 16 }, (_, b): [[number, number], [number, number]] => [
    [9000, b % 2 === 0 ? 1200 : 600],
    [1000, 300],
  ]);

  it("takes the interval from the buckets, which sees the draw", () => {
    const caused = causedReadsSaved(sumsWithBuckets(buckets));
    assert.equal(caused.status, "measured", describeMeasured(caused));
    if (caused.status !== "measured") return;
    const { interval } = caused.value;
    assert.equal(interval.method, "hash-buckets");
    if (interval.method !== "hash-buckets") return;
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
    // (Twenty identical intervals carry no information on their dependence: the unit floor is off here.)
    const caused = causedReadsSaved(sumsWithBuckets(buckets.slice(0, 5)), { minimumUnits: 1 });
    assert.equal(caused.status, "not-measured");
    assert.match(describeMeasured(caused), /page groups fell in 5 of the agent's 16 hash buckets/);
  });
});
