import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resampleHoldoutBlocks } from "./caused-bootstrap.js";
import { causedReadsSaved } from "./caused-reads.js";
import { holdoutDependence, type HoldoutSums, type HoldoutUnit } from "./caused-units.js";
import { describeMeasured } from "./measured.js";

const page = 4096;
/** A unit in pages: managed accessed/missed, control accessed/missed, at a holdout share. */
const unit = (managed: [number, number], control: [number, number], holdoutShare = 0.1): HoldoutUnit => ({
  holdoutShare,
  managedAccessedBytes: managed[0] * page,
  managedMissedBytes: managed[1] * page,
  controlAccessedBytes: control[0] * page,
  controlMissedBytes: control[1] * page,
});
const sums = (units: HoldoutUnit[]): HoldoutSums => ({ units, samples: units.length, ownReadBytes: null, ownPageHitBytes: null });

describe("causedReadsSaved", () => {
  it("credits managed accesses × (control miss ratio − managed miss ratio), with no spread when every interval is alike", () => {
    // 20 intervals, each: managed 900 accesses / 90 misses, control 100 / 30. Totals: A_m = 18,000,
    // m_m = 0.1, m_c = 0.3, so saved = 18,000 × 0.2 = 3,600 pages; every resample is the same.
    const caused = causedReadsSaved(sums(Array.from({ length: 20 }, () => unit([900, 90], [100, 30]))));
    assert.equal(caused.status, "measured", describeMeasured(caused));
    if (caused.status !== "measured") return;
    assert.ok(Math.abs(caused.value.savedPages - 3600) < 1e-9);
    assert.ok(Math.abs(caused.value.interval.lowPages - 3600) < 1e-9 && Math.abs(caused.value.interval.highPages - 3600) < 1e-9);
    assert.ok(Math.abs(caused.value.controlMissRatio - 0.3) < 1e-12 && Math.abs(caused.value.managedMissRatio - 0.1) < 1e-12);
    assert.equal(caused.value.controlShare, 0.1);
    assert.equal(caused.value.effectiveUnits, 20);
    assert.deepEqual(
      caused.basis.map((input) => input.samples),
      [2000, 18_000],
    );
  });

  it("has the interval of the exact resampling distribution on a two-interval case", () => {
    // u1: managed 100/10, control 100/50; u2: managed 100/30, control 100/30 (blocks of 1).
    // Resamples: {u1,u1} d = 0.5 − 0.1 = 0.4 (¼), {u1,u2} d = 0.4 − 0.2 = 0.2 (½), {u2,u2} d = 0 (¼).
    // 2.5 % and 97.5 % points: 0 and 0.4; A_m = 200 pages, so the interval is [0, 80] around 40.
    const caused = causedReadsSaved(sums([unit([100, 10], [100, 50], 0.5), unit([100, 30], [100, 30], 0.5)]), {
      minimumUnits: 1,
      minimumControlPages: 0,
    });
    assert.equal(caused.status, "measured", describeMeasured(caused));
    if (caused.status !== "measured") return;
    assert.ok(Math.abs(caused.value.savedPages - 40) < 1e-9);
    assert.ok(Math.abs(caused.value.interval.lowPages) < 1e-9, `${caused.value.interval.lowPages}`);
    assert.ok(Math.abs(caused.value.interval.highPages - 80) < 1e-9, `${caused.value.interval.highPages}`);
    assert.equal(caused.value.interval.blockLength, 1);
  });

  it("shows a negative saving when the managed pages missed more than the control", () => {
    const caused = causedReadsSaved(sums(Array.from({ length: 12 }, () => unit([900, 180], [100, 10]))));
    assert.equal(caused.status, "measured");
    if (caused.status !== "measured") return;
    // 10,800 × (0.1 − 0.2) = −1,080 pages
    assert.ok(Math.abs(caused.value.savedPages + 1080) < 1e-9);
    assert.ok(caused.value.interval.highPages < 0);
  });

  it("is not measured with too few control accesses, and says how many there were", () => {
    const caused = causedReadsSaved(sums(Array.from({ length: 30 }, () => unit([300, 30], [30, 3]))));
    assert.equal(caused.status, "not-measured");
    assert.match(describeMeasured(caused), /not enough control accesses: the control group was read 900 pages in 30 intervals/);
  });

  it("counts dependent intervals as fewer: ten alike then ten alike is worth about three", () => {
    // Influence: +0.01 ten times, then −0.01 ten times; its lag-k autocorrelation is (20 − 3k) / 20.
    // Geyer's pairs: 1.85, 1.25, 0.65, 0.05, then −0.55 stops; τ = 2 × 3.8 − 1 = 6.6, so the
    // 20 intervals are worth 20 / 6.6 ≈ 3.03: below the floor of 10.
    const units = [
      ...Array.from({ length: 10 }, () => unit([900, 90], [100, 50])),
      ...Array.from({ length: 10 }, () => unit([900, 90], [100, 10])),
    ];
    const dependence = holdoutDependence(units, {
      managedAccessed: 18_000 * page,
      managedMissed: 1800 * page,
      controlAccessed: 2000 * page,
      controlMissed: 600 * page,
    });
    assert.ok(Math.abs(dependence.autocorrelationTime - 6.6) < 1e-9, `${dependence.autocorrelationTime}`);
    assert.ok(Math.abs(dependence.effectiveUnits - 20 / 6.6) < 1e-9);
    // 2τ = 13.2 would make blocks of 14; at most n / 2 = 10.
    assert.equal(dependence.blockLength, 10);
    const caused = causedReadsSaved(sums(units));
    assert.equal(caused.status, "not-measured");
    assert.match(describeMeasured(caused), /in 20 intervals \(about 3 independent ones\)/);
  });

  it("is not measured when a hot spot put the control far from its share by design", () => {
    // The control took 2 % of the accesses where the draw gives it 10 %.
    const caused = causedReadsSaved(sums(Array.from({ length: 20 }, () => unit([4900, 490], [100, 30]))));
    assert.equal(caused.status, "not-measured");
    assert.match(describeMeasured(caused), /unbalanced: it took 2 % of the accesses where the draw gives it 10 %/);
  });

  it("is not measured without a control, and says which way it is missing", () => {
    assert.match(describeMeasured(causedReadsSaved(sums([]))), /no control-group counts.*Windows/);
    const none = causedReadsSaved(sums(Array.from({ length: 20 }, () => unit([1000, 10], [0, 0], 0))));
    assert.match(describeMeasured(none), /holdoutPercent 0/);
  });

  it("leaves out intervals without a control rather than mixing them into the managed side", () => {
    // With the holdout-0 intervals (all misses) counted, the managed miss ratio would rise and the saving fall.
    const units = [
      ...Array.from({ length: 20 }, () => unit([900, 90], [100, 30])),
      ...Array.from({ length: 5 }, () => unit([1000, 1000], [0, 0], 0)),
    ];
    const caused = causedReadsSaved(sums(units));
    assert.ok(caused.status === "measured" && Math.abs(caused.value.savedPages - 3600) < 1e-9, describeMeasured(caused));
  });
});

describe("resampleHoldoutBlocks", () => {
  it("strings blocks of consecutive units from uniform starts and cuts to n", () => {
    const units = Array.from({ length: 10 }, (_, i) => i);
    // start = floor(0.5 × (10 − 3 + 1)) = 4, every time
    assert.deepEqual(
      resampleHoldoutBlocks(units, 3, () => 0.5),
      [4, 5, 6, 4, 5, 6, 4, 5, 6, 4],
    );
    assert.deepEqual(
      resampleHoldoutBlocks(units, 3, () => 0.999),
      [7, 8, 9, 7, 8, 9, 7, 8, 9, 7],
    );
  });
});
