import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { verdictMetrics, type MetricVerdict } from "@spindle/domain";
import { describeVerdict, formatConfidence, formatP } from "./format-verdict";

type Judged = Extract<MetricVerdict, { status: "verdict" }>;
const base: Judged = {
  status: "verdict",
  metric: verdictMetrics.meanReadLatency,
  stage: "final",
  verdict: "better",
  method: "previous-days",
  basis: "b",
  scale: "relative",
  after: 0.0015,
  expected: 0.002,
  change: -0.25,
  interval: { low: -0.31, high: -0.18, confidence: 0.9875 },
  pValue: 0.0004,
  adjustedPValue: 0.0016,
  metricsCompared: 4,
  alpha: 0.05,
};

describe("how a verdict reads", () => {
  it("shows a relative change as a signed percentage with its interval's level and the Holm-adjusted p-value", () => {
    assert.equal(describeVerdict(base), "−25.0 % (98.75 % interval −31.0 % to −18.0 %; p = 0.002 after Holm over 4 metrics)");
  });

  it("shows an absolute change in the metric's unit, and drops Holm for a single metric", () => {
    const absolute: Judged = {
      ...base,
      metric: verdictMetrics.splitIosPerIo,
      scale: "absolute",
      change: 0.013,
      interval: { low: 0.004, high: 0.022, confidence: 0.95 },
      adjustedPValue: 0.0004,
      metricsCompared: 1,
    };
    assert.equal(describeVerdict(absolute), "+0.013 (95 % interval +0.004 to +0.022; p < 0.001)");
    const latency: Judged = {
      ...base,
      scale: "absolute",
      change: -0.0012,
      interval: { low: -0.002, high: 0.0003, confidence: 0.999 },
      metricsCompared: 1,
    };
    assert.equal(describeVerdict(latency), "−1.2 ms (99.9 % interval −2 ms to +300 µs; p = 0.002)");
  });

  it("formats levels and p-values as a reader wants them", () => {
    assert.equal(formatConfidence(0.95), "95 %");
    assert.equal(formatConfidence(1 - 0.05 / 3), "98.33 %");
    assert.equal(formatP(0.0423), "p = 0.042");
    assert.equal(formatP(0.00001), "p < 0.001");
  });
});
