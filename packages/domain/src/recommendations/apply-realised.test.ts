import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyPolicyChange, describePolicyChange } from "./apply-change.js";
import { realisedEffect } from "./realised.js";
import type { Confidence, Prediction } from "./types.js";

describe("applying a change to the server's layer", () => {
  it("sets the budget and keeps the rest of the layer", () => {
    const layer = { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/**"] }, telemetry: { intervalSeconds: 5 } };
    const next = applyPolicyChange(layer, { type: "set_read_cache_budget", budgetBytes: 6 * 1024 ** 3 }, {});
    assert.deepEqual(next, { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/**"], budgetBytes: 6442450944 }, telemetry: { intervalSeconds: 5 } });
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
    const rule = applyPolicyChange({ schemaVersion: 1 }, { type: "add_preallocation_rule", pattern: "/var/log/*.log", chunkBytes: 67108864 },
      { writeOptimization: { preallocation: [{ pattern: "/data/*.wal", chunkBytes: 1048576 }] } });
    assert.deepEqual(rule.writeOptimization, { enabled: true, preallocation: [{ pattern: "/data/*.wal", chunkBytes: 1048576 }, { pattern: "/var/log/*.log", chunkBytes: 67108864 }] });
    const defrag = applyPolicyChange({ schemaVersion: 1 }, { type: "add_defragmentation_include", pattern: "/data/hot.db" }, {});
    assert.deepEqual(defrag.writeOptimization, { enabled: true, defragmentation: { enabled: true, include: ["/data/hot.db"] } });
    assert.equal(describePolicyChange({ type: "set_telemetry_ebpf", mode: "auto" }), "telemetry.ebpf = auto");
  });
});

describe("realised effect", () => {
  const prediction: Prediction = { metric: "read_cache_hit_ratio", before: 0.61, after: 0.88, summary: "s", basis: "b" };
  const confidence: Confidence = { level: "high", tolerance: 0.03, reason: "r" };
  const windows = {
    before: { from: new Date("2026-11-22T10:00:00Z"), to: new Date("2026-11-22T11:00:00Z") },
    after: { from: new Date("2026-11-23T10:00:00Z"), to: new Date("2026-11-23T11:00:00Z") },
  };

  it("compares the hit ratio after the change with the prediction", () => {
    // after: 860 / (860 + 140) = 0.86, |0.86 - 0.88| = 0.02 ≤ 0.03
    const effect = realisedEffect(prediction, confidence, windows, {
      before: { hitsBytes: 600, missesBytes: 400, samples: 360 }, after: { hitsBytes: 860, missesBytes: 140, samples: 360 },
    });
    assert.equal(effect.status, "measured");
    if (effect.status !== "measured") return;
    assert.equal(effect.before, 0.6);
    assert.equal(effect.after, 0.86);
    assert.equal(effect.withinConfidence, true);
    assert.equal(effect.windows.after.from, "2026-11-23T10:00:00.000Z");
  });

  it("counts a miss beyond the tolerance as a miss", () => {
    // 0.8 is 0.08 below 0.88
    const effect = realisedEffect(prediction, confidence, windows, { before: null, after: { hitsBytes: 800, missesBytes: 200, samples: 10 } });
    assert.equal(effect.status === "measured" && effect.withinConfidence, false);
    assert.equal(effect.status === "measured" && effect.before, null);
  });

  it("says not measured without counters, and for kinds the counters do not show", () => {
    assert.equal(realisedEffect(prediction, confidence, windows, { before: null, after: { hitsBytes: null, missesBytes: null, samples: 0 } }).status, "not-measured");
    const none: Prediction = { ...prediction, metric: "excess_extents" };
    assert.equal(realisedEffect(none, confidence, windows, { before: null, after: { hitsBytes: 1, missesBytes: 1, samples: 1 } }).status, "not-measured");
  });
});
