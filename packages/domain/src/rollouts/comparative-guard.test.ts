import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { verdictMetrics } from "../gains/verdict/metrics.js";
import { comparativeGuard, readCacheMissRatioMetric, type GuardMetricInput } from "./comparative-guard.js";
import { defaultRolloutPlan, rolloutPlanSchema } from "./plan.js";

const guards = defaultRolloutPlan().guards;
const windows = { describe: "12:15–12:30 against 11:58–12:13", afterMinutes: 15 };
/** A server whose ratio is `before` then `after`, over 100,000 I/Os a window. */
const server = (serverId: string, before: number, after: number) => ({
  serverId,
  before: { numerator: before * 100_000, denominator: 100_000 },
  after: { numerator: after * 100_000, denominator: 100_000 },
});
/** Controls that wander a little around `level` (±2 %), as unchanged servers do. */
const controls = (count: number, level: number, drift = 1) =>
  Array.from({ length: count }, (_, i) =>
    server(`c${i}`, level * (1 + ((i % 3) - 1) * 0.02), level * drift * (1 + (((i + 1) % 3) - 1) * 0.02)),
  );
const input = (
  treated: GuardMetricInput["treated"],
  control: GuardMetricInput["control"],
  metric = readCacheMissRatioMetric,
): GuardMetricInput => ({ metric, treated, control, previousDays: [] });

describe("the comparative guard", () => {
  it("trips when the wave's miss ratio jumps while the servers not yet changed stay put", () => {
    const reading = comparativeGuard([input([server("canary", 0.05, 0.6)], controls(6, 0.05))], guards, windows);
    assert.equal(reading.status, "trip");
    assert.match(reading.summary, /Read-cache miss ratio \(managed files\) \+/);
    const metric = reading.metrics![0]!;
    assert.equal(metric.status, "trip");
    assert.equal(metric.scale, "relative");
    assert.ok(metric.interval!.low > 0.1, `interval ${JSON.stringify(metric.interval)} above the tolerance`);
    assert.match(metric.detail, /difference in differences against 6 servers not yet changed/);
  });

  it("passes a change the whole fleet shared: the controls moved the same way", () => {
    const reading = comparativeGuard([input([server("canary", 0.05, 0.08)], controls(6, 0.05, 1.6))], guards, windows);
    assert.equal(reading.status, "pass");
  });

  it("passes a significant but negligible shift, below the tolerance", () => {
    // Perfectly uniform controls make any difference significant; 3 % is below the 10 % tolerance.
    const uniform = Array.from({ length: 5 }, (_, i) => server(`c${i}`, 0.05, 0.05));
    const reading = comparativeGuard([input([server("canary", 0.05, 0.0515)], uniform)], guards, windows);
    assert.equal(reading.status, "pass");
  });

  it("holds with too few servers not yet changed and no previous days", () => {
    const reading = comparativeGuard([input([server("canary", 0.05, 0.6)], controls(2, 0.05))], guards, windows);
    assert.equal(reading.status, "not-enough-data");
    assert.match(reading.summary, /2 servers not yet changed have enough data in both windows; 3 are needed/);
    // The per-rollout threshold lowers the bar, and then the regression is seen.
    const lowered = rolloutPlanSchema.parse({ guards: { comparative: { minimumControls: 2 } } }).guards;
    assert.equal(comparativeGuard([input([server("canary", 0.05, 0.6)], controls(2, 0.05))], lowered, windows).status, "trip");
  });

  it("judges the last wave against previous days when no server is left unchanged", () => {
    const day = (ratio: number) => ({ numerator: ratio * 200_000, denominator: 200_000 });
    const treated = [server("a", 0.05, 0.3), server("b", 0.05, 0.3)];
    const reading = comparativeGuard(
      [{ ...input(treated, []), previousDays: [day(0.05), day(0.051), day(0.049), day(0.05), day(0.052)] }],
      guards,
      windows,
    );
    assert.equal(reading.status, "trip");
    assert.match(reading.metrics![0]!.detail, /previous days/);
  });

  it("judges against the servers not yet changed even when previous days could be compared", () => {
    // The previous days say the canary's level is ordinary; the concurrent control says it jumped.
    const day = (ratio: number) => ({ numerator: ratio * 200_000, denominator: 200_000 });
    const days = [day(0.6), day(0.61), day(0.59), day(0.6), day(0.62)];
    const reading = comparativeGuard([{ ...input([server("canary", 0.05, 0.6)], controls(6, 0.05)), previousDays: days }], guards, windows);
    assert.equal(reading.status, "trip");
    assert.match(reading.metrics![0]!.detail, /difference in differences against 6 servers not yet changed/);
    assert.doesNotMatch(reading.metrics![0]!.detail, /previous days/);
    // With too few servers left to compare, the previous days stand in.
    const few = comparativeGuard([{ ...input([server("canary", 0.05, 0.6)], controls(2, 0.05)), previousDays: days }], guards, windows);
    assert.match(few.metrics![0]!.detail, /previous days/);
  });

  it("says which metrics nothing measures, and holds when none is compared", () => {
    const reading = comparativeGuard(
      [input([server("canary", 0.05, 0.05)], controls(6, 0.05)), input([], controls(6, 0.01), verdictMetrics.splitIosPerIo)],
      guards,
      windows,
    );
    assert.equal(reading.status, "pass");
    assert.deepEqual(
      reading.metrics!.map((m) => [m.key, m.status]),
      [
        ["readCacheMissRatio", "pass"],
        ["splitIosPerIo", "not-measured"],
      ],
    );
    assert.equal(comparativeGuard([input([], controls(6, 0.01), verdictMetrics.splitIosPerIo)], guards, windows).status, "not-measured");
  });
});
