import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Look } from "./horizon.js";
import { judgeChange, previousDaysSuffice, type MetricEvidence, type MetricVerdict } from "./judge.js";
import { verdictMetrics } from "./metrics.js";

const close = (actual: number, expected: number, tolerance = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} ≠ ${expected}`);
const finalLook: Extract<Look, { status: "look" }> = {
  status: "look",
  stage: "final",
  afterMinutes: 1440,
  alpha: 0.05,
  horizonMinutes: 1440,
  finalAt: new Date(0),
};
const provisionalLook: Extract<Look, { status: "look" }> = { ...finalLook, stage: "provisional", afterMinutes: 60, alpha: 0.001 };
const sums = (value: number, reads = 10_000) => ({ numerator: value * reads, denominator: reads });
/** Seven previous days alternating ±2 % around 2 ms. */
const week = [0.00204, 0.00196, 0.00204, 0.00196, 0.00204, 0.00196, 0.00204].map((value) => sums(value));

function evidence(metric: keyof typeof verdictMetrics, overrides: Partial<MetricEvidence> = {}): MetricEvidence {
  return { metric: verdictMetrics[metric], after: sums(0.002), previousDays: week, concurrent: null, minutes: null, ...overrides };
}
const verdictOf = (result: MetricVerdict) =>
  result.status === "verdict" ? result : assert.fail(`no verdict: ${result.status === "not-enough-data" ? result.reason : ""}`);

describe("judging a change", () => {
  it("uses the previous days without servers not yet changed, and says so", () => {
    const [latency] = judgeChange([evidence("meanReadLatency", { after: sums(0.0015) })], finalLook);
    const result = verdictOf(latency!);
    assert.equal(result.method, "previous-days");
    assert.equal(result.verdict, "better");
    assert.equal(result.stage, "final");
    assert.match(result.basis, /^placebo predictions from the same window on 7 previous days \(10,000 reads after the change\)$/);
    close(result.expected, Math.sqrt(0.00204 * 0.00196), 1e-12);
    close(result.change, 0.0015 / result.expected - 1);
    assert.ok(result.interval.high < 0 && result.interval.low < result.change);
    assert.equal(result.interval.confidence, 0.95);
    assert.equal(result.metricsCompared, 1);
  });

  it("uses servers not yet changed when fewer than four previous days have the window", () => {
    const control = ["a", "b", "c"].map((serverId, i) => ({
      serverId,
      before: sums(0.002 + i * 0.0001),
      after: sums((0.002 + i * 0.0001) * (1 + (i - 1) * 0.01)),
    }));
    const concurrent = {
      treated: [{ serverId: "t", before: sums(0.002), after: sums(0.003) }],
      control,
      beforeWindow: "the same hours of the previous day",
    };
    const [latency] = judgeChange(
      [evidence("meanReadLatency", { after: sums(0.003), previousDays: week.slice(0, 3), concurrent })],
      finalLook,
    );
    const result = verdictOf(latency!);
    assert.equal(result.method, "concurrent-control");
    assert.equal(result.verdict, "worse");
    assert.equal(result.basis, "difference in differences against 3 servers not yet changed (before: the same hours of the previous day)");
    // With a week of history the server's own previous days judge it, controls or not.
    const [withWeek] = judgeChange([evidence("meanReadLatency", { after: sums(0.003), concurrent })], finalLook);
    assert.equal(verdictOf(withWeek!).method, "previous-days");
    assert.equal(previousDaysSuffice(evidence("meanReadLatency")), true);
    assert.equal(previousDaysSuffice(evidence("meanReadLatency", { previousDays: week.slice(0, 3) })), false);
  });

  it("corrects for several metrics with Holm, and the interval agrees with the answer", () => {
    // Latency clearly better; misses 7 % up (p = 0.025 on its own: between 0.0125 and 0.05).
    const results = judgeChange(
      [
        evidence("meanReadLatency", { after: sums(0.0015) }),
        evidence("pageCacheMissRatio", { after: sums(0.00214) }),
        evidence("splitIosPerIo"),
        evidence("storageReadsPerAccess"),
      ],
      finalLook,
    ).map(verdictOf);
    const misses = results[1]!;
    assert.ok(misses.pValue < 0.05 && misses.pValue > 0.0125, `p = ${misses.pValue}`);
    assert.equal(misses.verdict, "no-measurable-change", "significant alone, not after Holm over four metrics");
    assert.ok(misses.interval.low < 0 && misses.interval.high > 0);
    assert.ok(misses.interval.confidence > 0.95);
    assert.ok(misses.adjustedPValue >= misses.pValue);
    assert.equal(results[0]!.verdict, "better");
    close(results[0]!.interval.confidence, 1 - 0.05 / 4);
    assert.ok(results.every((result) => result.metricsCompared === 4 && result.alpha === 0.05));
  });

  it("marks early readings provisional and holds them to alpha = 0.1 %", () => {
    // 10 % over the prediction: p = 0.008.
    const [latency] = judgeChange([evidence("meanReadLatency", { after: sums(0.0022) })], provisionalLook);
    const result = verdictOf(latency!);
    assert.equal(result.stage, "provisional");
    assert.equal(result.verdict, "no-measurable-change", "not enough this early");
    close(result.interval.confidence, 0.999);
    const [final] = judgeChange([evidence("meanReadLatency", { after: sums(0.0022) })], finalLook);
    assert.equal(verdictOf(final!).verdict, "worse");
  });

  it("falls back to the block bootstrap only at the final reading of a whole day, and otherwise says why not", () => {
    const day = (seconds: number) =>
      Array.from({ length: 1440 }, (_, i) => ({ numerator: 100 * seconds * (1 + 0.2 * Math.sin(i)), denominator: 100 }));
    const minutes = { before: day(0.002), after: day(0.0015), beforeWindow: "the same hours of the previous day" };
    let read = 0;
    const lazy = () => {
      read++;
      return minutes;
    };
    const short = evidence("meanReadLatency", { previousDays: week.slice(0, 1), minutes: lazy });
    const [early] = judgeChange([short], provisionalLook);
    assert.equal(early!.status, "not-enough-data");
    assert.equal(read, 0, "the minutes are not read when the fallback cannot be used");
    assert.equal(
      early!.status === "not-enough-data" && early!.reason,
      "previous days: 1 of the 7 previous days have this window with at least 100 reads; 4 are needed; servers not yet changed: none to compare with; " +
        "block bootstrap: only at the final reading of an after window of at least 24 hours",
    );
    const [final] = judgeChange([short], finalLook);
    const result = verdictOf(final!);
    assert.equal(read, 1);
    assert.equal(result.method, "block-bootstrap");
    assert.equal(result.verdict, "better");
    assert.match(
      result.basis,
      /^block bootstrap of 1-minute buckets against the same hours of the previous day \(500 resamples in blocks of \d+\/\d+ minutes; effective sample \d+ before, \d+ after\); it cannot see how whole days differ$/,
    );
    const [none] = judgeChange([evidence("meanReadLatency", { previousDays: [] })], finalLook);
    assert.match(none!.status === "not-enough-data" ? none!.reason : "", /block bootstrap: no earlier window at the same hours/);
  });
});
