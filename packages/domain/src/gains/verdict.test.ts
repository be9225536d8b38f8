import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bootstrapDifference, seededRandom, type RatioUnit } from "./bootstrap.js";
import { compareWindows, verdictMetrics } from "./verdict.js";

const latency = verdictMetrics.meanReadLatency;
/** `count` intervals of 100 reads each, alternating between two mean latencies. */
const units = (count: number, secondsA: number, secondsB = secondsA): RatioUnit[] =>
  Array.from({ length: count }, (_, i) => ({ numerator: 100 * (i % 2 === 0 ? secondsA : secondsB), denominator: 100 }));

describe("bootstrapDifference", () => {
  it("is exact when every unit is the same: the interval collapses onto the difference", () => {
    const interval = bootstrapDifference(units(12, 0.01), units(12, 0.004), { seed: 1, iterations: 200, confidence: 0.95 });
    assert.ok(Math.abs(interval.low - -0.006) < 1e-12 && Math.abs(interval.high - -0.006) < 1e-12);
  });

  it("is deterministic for a seed", () => {
    const options = { seed: 42, iterations: 500, confidence: 0.9 };
    assert.deepEqual(bootstrapDifference(units(20, 0.01, 0.03), units(20, 0.012, 0.02), options), bootstrapDifference(units(20, 0.01, 0.03), units(20, 0.012, 0.02), options));
    const random = seededRandom(7);
    const draws = Array.from({ length: 1000 }, random);
    assert.ok(draws.every((value) => value >= 0 && value < 1));
    assert.deepEqual(draws.slice(0, 3), Array.from({ length: 3 }, seededRandom(7)));
  });
});

describe("compareWindows", () => {
  it("says better when the whole interval is below zero", () => {
    // Before: 10 ms and 12 ms alternating (mean 11 ms); after: 4 ms and 6 ms (mean 5 ms).
    const result = compareWindows(latency, units(20, 0.01, 0.012), units(20, 0.004, 0.006));
    assert.equal(result.status, "verdict");
    assert.equal(result.verdict, "better");
    assert.ok(Math.abs(result.before.value - 0.011) < 1e-12);
    assert.ok(Math.abs(result.after.value - 0.005) < 1e-12);
    assert.ok(Math.abs(result.difference - -0.006) < 1e-12);
    // Resampled means stay within each side's extremes: −8 ms to −4 ms.
    assert.ok(result.interval.low >= -0.008 - 1e-12 && result.interval.high <= -0.004 + 1e-12 && result.interval.high < 0);
    assert.deepEqual([result.before.units, result.before.denominator], [20, 2000]);
  });

  it("says worse when the whole interval is above zero", () => {
    const result = compareWindows(latency, units(20, 0.004, 0.006), units(20, 0.01, 0.012));
    assert.equal(result.status === "verdict" && result.verdict, "worse");
  });

  it("says no measurable change when the interval spans zero", () => {
    // The same spread on both sides: 2 ms and 20 ms alternating.
    const result = compareWindows(latency, units(20, 0.002, 0.02), units(20, 0.02, 0.002));
    assert.equal(result.status, "verdict");
    assert.equal(result.verdict, "no-measurable-change");
    assert.equal(result.difference, 0);
    assert.ok(result.interval.low < 0 && result.interval.high > 0);
  });

  it("gives no verdict on too few intervals or too few I/Os", () => {
    const fewUnits = compareWindows(latency, units(9, 0.01), units(20, 0.001));
    assert.equal(fewUnits.status, "not-enough-data");
    assert.match(fewUnits.reason, /9 intervals with reads before the change; at least 10/);
    const fewReads = compareWindows(latency, units(20, 0.01), Array.from({ length: 20 }, () => ({ numerator: 0.001, denominator: 1 })));
    assert.equal(fewReads.status, "not-enough-data");
    assert.match(fewReads.reason, /20 reads after the change; at least 100/);
    const idle = compareWindows(latency, units(20, 0.01), Array.from({ length: 30 }, () => ({ numerator: 0, denominator: 0 })));
    assert.equal(idle.status, "not-enough-data", "intervals without reads do not count");
  });
});
