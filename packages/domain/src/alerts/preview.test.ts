import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AlertCondition } from "./schema.js";
import { findAlertSignal } from "./signals.js";
import { previewAlertRule } from "./preview.js";
import type { SourceRow } from "./observe.js";

const t0 = Date.parse("2026-11-20T00:00:00Z");
const minutes = (n: number) => n * 60_000;

/** Utilisation per minute: busy share (0..1) for each minute from t0. */
const series = (shares: number[]): SourceRow[] =>
  shares.map((share, i) => ({ start: t0 + minutes(i), sums: { interval_seconds: 60, io_time_ms: share * 60_000 } }));

describe("previewAlertRule", () => {
  const signal = findAlertSignal("disk.utilisation")!;
  // avg over 2 minutes > 80 %, held 3 minutes, resolved after 2 clear minutes.
  const rule: AlertCondition = {
    signal: signal.id,
    aggregation: "avg",
    comparison: ">",
    threshold: 80,
    windowSeconds: 120,
    forSeconds: 180,
    resolveSeconds: 120,
    noDataSeconds: 600,
  };

  it("counts what would have fired, what the for-duration absorbed, and no data", () => {
    // Minutes 0-9 idle, 10-19 busy, 20-24 idle, 25-26 busy (too short), 27-39 idle, then silence.
    const shares = [...Array(10).fill(0.1), ...Array(10).fill(1), ...Array(5).fill(0.1), 1, 1, ...Array(13).fill(0.1)];
    const result = previewAlertRule(
      signal,
      rule,
      [{ serverId: "s1", component: "sda", rows: series(shares) }],
      new Date(t0 + minutes(2)),
      new Date(t0 + minutes(60)),
    );
    assert.ok(result.previewable);
    // Window [t−2 min, t): breach from t = 11 min (buckets 9,10 avg 55 %? no: t = 12 min, buckets 10, 11).
    // Pending at 12, firing at 15 (held 3 min), breach through t = 21 (buckets 19, 20: avg 55 % → clear at 21),
    // clear at 21, 22 → resolved at 23. Minutes 25-26 busy: breach at t = 27 (buckets 25, 26), pending,
    // clear at 28 → pending cleared. Data ends at minute 40 (bucket 39 ends 40 min): no data at t = 50.
    assert.equal(result.firings, 1);
    assert.equal(result.pendingsCleared, 1);
    assert.equal(result.noDataEntries, 1);
    assert.equal(result.subjects, 1);
    assert.equal(result.subjectsFired, 1);
    assert.equal(result.firingSeconds, 8 * 60, "firing from minute 15 to 23");
    assert.equal(result.evaluations, 59);
  });

  it("says honestly when a signal has no history to replay", () => {
    const result = previewAlertRule(
      findAlertSignal("policy.failed")!,
      { ...rule, signal: "policy.failed", aggregation: "last" },
      [],
      new Date(t0),
      new Date(t0 + minutes(60)),
    );
    assert.equal(result.previewable, false);
  });
});
