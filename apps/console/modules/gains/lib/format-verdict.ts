// How a verdict reads: the change as a percentage (relative scale) or a difference in the metric's
// unit (absolute scale), its interval, and the method in words.
import type { MetricVerdict, VerdictMethod } from "@spindle/domain";
import { formatInUnit } from "./format-gains";

type Judged = Extract<MetricVerdict, { status: "verdict" }>;

const sign = (value: number) => (value > 0 ? "+" : value < 0 ? "−" : "±");

/** −18.2 % on the relative scale; −1.2 ms or +0.013 on the absolute one. */
export function formatChange(result: Judged, value: number): string {
  if (result.scale === "relative") return `${sign(value)}${Math.abs(value * 100).toFixed(1)} %`;
  return `${sign(value)}${formatInUnit(Math.abs(value), result.metric.unit)}`;
}

/** "99.9 %", "98.75 %": the interval's level, as precise as it needs to be. */
export function formatConfidence(confidence: number): string {
  return `${Number((confidence * 100).toPrecision(4))} %`;
}

/** p-values as a reader wants them: "p < 0.001", "p = 0.032". */
export function formatP(p: number): string {
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

export const methodNames: Record<VerdictMethod, string> = {
  "concurrent-control": "Servers not yet changed (difference in differences)",
  "previous-days": "Same window on previous days (placebo predictions)",
  "block-bootstrap": "Previous day, minute by minute (block bootstrap, fallback)",
};

/** One line: "−18.2 % (98.75 % interval −27.0 % to −8.1 %; p = 0.003 after Holm over 4 metrics)". */
export function describeVerdict(result: Judged): string {
  const { interval } = result;
  const holm = result.metricsCompared > 1 ? ` after Holm over ${result.metricsCompared} metrics` : "";
  return `${formatChange(result, result.change)} (${formatConfidence(interval.confidence)} interval ${formatChange(result, interval.low)} to ${formatChange(result, interval.high)}; ${formatP(result.adjustedPValue)}${holm})`;
}
