import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyPolicyChange, describePolicyChange } from "./apply-change.js";
import { normalSource, seededRandom } from "../stats/random.js";
import { realisedEffect, realisedEffectSchema } from "./realised.js";
import type { Confidence, Prediction } from "./types.js";

describe("applying a change to the server's layer", () => {
  it("sets the budget and keeps the rest of the layer", () => {
    const layer = { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/**"] }, telemetry: { intervalSeconds: 5 } };
    const next = applyPolicyChange(layer, { type: "set_read_cache_budget", budgetBytes: 6 * 1024 ** 3 }, {});
    assert.deepEqual(next, {
      schemaVersion: 1,
      readCache: { enabled: true, include: ["/srv/**"], budgetBytes: 6442450944 },
      telemetry: { intervalSeconds: 5 },
    });
    assert.deepEqual(layer.readCache, { enabled: true, include: ["/srv/**"] }, "the input is not changed");
  });

  it("repeats the inherited include list, since a layer's list replaces it, and adds an entry once", () => {
    const inherited = { readCache: { include: ["/srv/db/**"] } };
    const next = applyPolicyChange({ schemaVersion: 1 }, { type: "add_read_cache_include", pattern: "/srv/backup.tar" }, inherited);
    assert.deepEqual(next.readCache, { include: ["/srv/db/**", "/srv/backup.tar"] });
    const again = applyPolicyChange(next, { type: "add_read_cache_include", pattern: "/srv/backup.tar" }, inherited);
    assert.deepEqual(again.readCache, { include: ["/srv/db/**", "/srv/backup.tar"] });
  });

  it("turns write optimisation on for a preallocation rule or a defragmentation include", () => {
    const rule = applyPolicyChange(
      { schemaVersion: 1 },
      { type: "add_preallocation_rule", pattern: "/var/log/*.log", chunkBytes: 67108864 },
      { writeOptimization: { preallocation: [{ pattern: "/data/*.wal", chunkBytes: 1048576 }] } },
    );
    assert.deepEqual(rule.writeOptimization, {
      enabled: true,
      preallocation: [
        { pattern: "/data/*.wal", chunkBytes: 1048576 },
        { pattern: "/var/log/*.log", chunkBytes: 67108864 },
      ],
    });
    const defrag = applyPolicyChange({ schemaVersion: 1 }, { type: "add_defragmentation_include", pattern: "/data/hot.db" }, {});
    assert.deepEqual(defrag.writeOptimization, { enabled: true, defragmentation: { enabled: true, include: ["/data/hot.db"] } });
    assert.equal(describePolicyChange({ type: "set_telemetry_ebpf", mode: "auto" }), "telemetry.ebpf = auto");
  });
});

describe("realised effect: the realised change against the predicted change", () => {
  const prediction: Prediction = { metric: "read_cache_hit_ratio", before: 0.61, after: 0.88, summary: "s", basis: "b" };
  const medium: Confidence = { level: "medium", tolerance: 0.05, reason: "r" };
  const day = { from: new Date("2026-11-23T10:00:00Z"), to: new Date("2026-11-24T10:00:00Z") };
  /** Hit and miss bytes with a hit ratio of `ratio` over 1 GiB read. */
  const sums = (ratio: number, samples = 8640) => ({ hitsBytes: ratio * 2 ** 30, missesBytes: (1 - ratio) * 2 ** 30, samples });
  // Seven previous days around 60 %, ±1 point.
  const week = [0.61, 0.59, 0.6, 0.61, 0.59, 0.6, 0.61].map((ratio) => sums(ratio));

  it("is consistent when the realised change's interval lies inside the predicted range", () => {
    // Predicted +27 points ± 5; realised 0.87 − 0.60 = +27 points, placebo errors about a point.
    const effect = realisedEffect(prediction, medium, day, { after: sums(0.87), previousDays: week, minutes: null });
    assert.equal(effect.status, "judged");
    if (effect.status !== "judged") return;
    assert.equal(effect.answer, "consistent");
    assert.equal(effect.realised.method, "previous-days");
    assert.ok(Math.abs(effect.realised.before! - 0.6) < 1e-9);
    assert.ok(Math.abs(effect.realised.change! - 0.27) < 1e-9);
    assert.ok(effect.realised.interval!.low > 0.22 && effect.realised.interval!.high < 0.32);
    assert.deepEqual(effect.predicted, {
      before: 0.61,
      after: 0.88,
      change: 0.88 - 0.61,
      range: { low: 0.88 - 0.61 - 0.05, high: 0.88 - 0.61 + 0.05 },
    });
    assert.match(
      effect.reason,
      /^the realised change's 95 % interval \[\d+\.\d points, \d+\.\d points\] lies inside the predicted range \[22\.0 points, 32\.0 points\]$/,
    );
    assert.equal(effect.windows.after.from, "2026-11-23T10:00:00.000Z");
    assert.match(effect.realised.basis, /placebo predictions from the same window on 7 previous days/);
  });

  it("is inconsistent when the realised change is surely outside the predicted range", () => {
    const effect = realisedEffect(prediction, medium, day, { after: sums(0.7), previousDays: week, minutes: null });
    assert.equal(effect.status === "judged" && effect.answer, "inconsistent");
  });

  it("is inconclusive when the realised interval is wider than the predicted range, or there is nothing to compare", () => {
    const noisy = [0.5, 0.7, 0.55, 0.68, 0.52, 0.66, 0.6].map((ratio) => sums(ratio));
    const wide = realisedEffect(prediction, medium, day, { after: sums(0.87), previousDays: noisy, minutes: null });
    assert.equal(wide.status === "judged" && wide.answer, "inconclusive");
    assert.match(
      wide.status === "judged" ? wide.reason : "",
      /overlaps the predicted range \[22\.0 points, 32\.0 points\] without lying inside it/,
    );
    const short = realisedEffect(
      prediction,
      medium,
      { from: day.from, to: new Date(day.from.getTime() + 30_000) },
      { after: sums(0.87), previousDays: week, minutes: null },
    );
    assert.equal(short.status === "judged" && short.answer, "inconclusive");
    assert.equal(short.status === "judged" && short.reason, "the realised window is 30 s; a change needs at least 60 minutes");
    assert.equal(short.status === "judged" && short.realised.after, 0.87, "the level after is still shown");
    const noHistory = realisedEffect(prediction, medium, day, { after: sums(0.87), previousDays: [], minutes: null });
    assert.match(noHistory.status === "judged" ? noHistory.reason : "", /^no realised change: 0 of the 7 previous days/);
    const noBefore = realisedEffect({ ...prediction, before: null }, medium, day, { after: sums(0.87), previousDays: week, minutes: null });
    assert.equal(
      noBefore.status === "judged" && noBefore.reason,
      "the prediction has no hit ratio at today's setting, so there is no predicted change",
    );
    assert.ok(noBefore.status === "judged" && noBefore.realised.interval !== null, "the realised change is still measured");
  });

  it("falls back to the block bootstrap against the previous day for a whole-day window", () => {
    const normal = normalSource(seededRandom(3));
    const minutes = (ratio: number) =>
      Array.from({ length: 1440 }, () => ({ numerator: 4096 * 100 * (ratio + 0.02 * normal()), denominator: 4096 * 100 }));
    const effect = realisedEffect(prediction, medium, day, {
      after: sums(0.87),
      previousDays: [sums(0.6)],
      minutes: { before: minutes(0.6), after: minutes(0.87) },
    });
    assert.equal(effect.status === "judged" && effect.realised.method, "block-bootstrap");
    assert.equal(effect.status === "judged" && effect.answer, "consistent");
  });

  it("says not measured without counters, and for kinds the counters do not show", () => {
    const day0 = { after: { hitsBytes: null, missesBytes: null, samples: 0 }, previousDays: [], minutes: null };
    assert.equal(realisedEffect(prediction, medium, day, day0).status, "not-measured");
    const none: Prediction = { ...prediction, metric: "excess_extents" };
    assert.equal(realisedEffect(none, medium, day, { after: sums(0.5), previousDays: [], minutes: null }).status, "not-measured");
  });

  it("still reads rows written before the comparison of changes", () => {
    const legacy = {
      status: "measured",
      metric: "read_cache_hit_ratio",
      before: 0.6,
      after: 0.86,
      predicted: 0.88,
      withinConfidence: true,
      windows: { before: null, after: { from: "2026-11-23T10:00:00.000Z", to: "2026-11-24T10:00:00.000Z" } },
      basis: "b",
    };
    assert.deepEqual(realisedEffectSchema.parse(legacy), legacy);
  });
});
