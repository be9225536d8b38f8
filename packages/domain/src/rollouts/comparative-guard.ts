// The comparative guard: the wave's servers against the servers not yet changed, over the same
// calendar windows (difference in differences, gains/verdict/concurrent-control.ts), on the costs
// per I/O of docs/gains.md and the read cache's miss ratio on its managed files. Whatever moved
// the whole fleet during the guard window moves the controls too and cancels; what remains is the
// change's own effect. When no servers are left unchanged (the last wave of an organisation-wide
// change) the same windows on previous days stand in, and without those it is "not enough data":
// the wave holds, it never passes on no evidence. The method is @spindle/domain's judgeChange, at
// one look (the end of the guard window), corrected for the number of metrics (Holm).
import type { ServerWindows } from "../gains/verdict/concurrent-control.js";
import { judgeChange, type MetricEvidence, type MetricVerdict } from "../gains/verdict/judge.js";
import { previousDaysDefaults } from "../gains/verdict/previous-days.js";
import { verdictMetrics, type VerdictMetric, type VerdictMetricKey } from "../gains/verdict/metrics.js";
import type { WindowSums } from "../gains/verdict/window-sums.js";
import type { RolloutGuards } from "./plan.js";
import type { GuardReadingInput, GuardStatus } from "./readings.js";

export type GuardMetricKey = VerdictMetricKey | "readCacheMissRatio";

/**
 * The read cache's own cost per managed read: bytes read from storage over bytes read. Per agent
 * (only its managed files), so it separates servers that share a host or an array, which the
 * host-wide page-cache counters cannot. judgeChange keys metrics by name only, so this metric
 * joins the four verdict metrics under a key of its own.
 */
export const readCacheMissRatioMetric = {
  key: "readCacheMissRatio" as VerdictMetricKey,
  label: "Read-cache miss ratio (managed files)",
  unit: "1",
  source: "the read cache's counters (read_cache: misses by residency, hits by the eBPF page-cache program)",
  denominatorUnit: "bytes read from managed files",
} satisfies VerdictMetric;

export const guardMetrics: readonly VerdictMetric[] = [
  verdictMetrics.meanReadLatency,
  verdictMetrics.pageCacheMissRatio,
  verdictMetrics.splitIosPerIo,
  verdictMetrics.storageReadsPerAccess,
  readCacheMissRatioMetric,
];

export interface GuardMetricInput {
  metric: VerdictMetric;
  /**
   * Sums over the guard window (after) and the equally long window before the wave went out, of
   * the servers that sent this metric at all (a server without its capability is left out).
   */
  treated: ServerWindows[];
  control: ServerWindows[];
  /** The wave's servers together over the guard window's hours on each previous day (index 0 = yesterday). */
  previousDays: (WindowSums | null)[];
}

export interface ComparativeWindows {
  /** "12:00–12:15 UTC against 11:43–11:58 UTC", for the basis line. */
  describe: string;
  afterMinutes: number;
}

const sum = (windows: readonly WindowSums[]): WindowSums => ({
  numerator: windows.reduce((total, w) => total + w.numerator, 0),
  denominator: windows.reduce((total, w) => total + w.denominator, 0),
});

const percent = (fraction: number) => `${fraction >= 0 ? "+" : ""}${(fraction * 100).toFixed(1)} %`;

function toleranceOf(verdict: Extract<MetricVerdict, { status: "verdict" }>, guards: RolloutGuards["comparative"]): number {
  return verdict.scale === "relative" ? guards.relativeTolerancePercent / 100 : guards.absoluteTolerance;
}

function formatChange(verdict: Extract<MetricVerdict, { status: "verdict" }>): string {
  if (verdict.scale === "relative") {
    return `${percent(verdict.change)} (${Math.round(verdict.interval.confidence * 100)} % interval ${percent(verdict.interval.low)} to ${percent(verdict.interval.high)})`;
  }
  const f = (value: number) => (value >= 0 ? "+" : "") + value.toPrecision(3);
  return `${f(verdict.change)} (${Math.round(verdict.interval.confidence * 100)} % interval ${f(verdict.interval.low)} to ${f(verdict.interval.high)})`;
}

/**
 * One reading for the wave. A metric trips when the Holm-corrected comparison calls it worse and
 * its change exceeds the tolerance (so a significant but negligible shift on a quiet, uniform
 * fleet is no regression). Metrics nothing on the wave measures are "not measured"; measured but
 * too few I/Os, or no comparison possible, is "not enough data", which holds the wave.
 */
export function comparativeGuard(
  inputs: readonly GuardMetricInput[],
  guards: RolloutGuards,
  windows: ComparativeWindows,
): GuardReadingInput {
  const comparative = guards.comparative;
  const measured = inputs.filter((input) => input.treated.length > 0);
  const notMeasured = inputs.filter((input) => !measured.includes(input));
  const treatedCount = Math.max(0, ...inputs.map((input) => input.treated.length));
  // Difference in differences needs a degree of freedom: with one changed server, two controls.
  const minimumControls = Math.max(comparative.minimumControls, 3 - treatedCount);
  // judgeChange prefers previous days to a concurrent control (right for a verdict on one
  // server's change); a rollout has a better control while enough servers are left unchanged, so
  // the previous days reach a metric only when too few of those have data (the last wave of an
  // organisation-wide change).
  const withData = (control: readonly ServerWindows[]) =>
    control.filter((server) => Math.min(server.before.denominator, server.after.denominator) >= comparative.minimumDenominator).length;
  const evidence: MetricEvidence[] = measured.map((input) => ({
    metric: input.metric,
    after: sum(input.treated.map((server) => server.after)),
    previousDays: withData(input.control) >= minimumControls ? [] : input.previousDays,
    concurrent: { treated: input.treated, control: input.control, beforeWindow: windows.describe },
    minutes: null,
  }));
  const alpha = 1 - comparative.confidence;
  const verdicts = judgeChange(
    evidence,
    {
      status: "look",
      stage: "final",
      afterMinutes: windows.afterMinutes,
      alpha,
      horizonMinutes: windows.afterMinutes,
      finalAt: new Date(0),
    },
    {
      concurrentControl: { minimumControls, minimumDenominator: comparative.minimumDenominator, confidence: comparative.confidence },
      previousDays: { ...previousDaysDefaults, minimumDenominator: comparative.minimumDenominator },
    },
  );

  const metrics = verdicts.map((verdict, index) => {
    const input = measured[index]!;
    if (verdict.status !== "verdict") {
      return {
        key: verdict.metric.key,
        label: verdict.metric.label,
        status: "not-enough-data" as GuardStatus,
        change: null,
        interval: null,
        scale: null,
        pValue: null,
        tolerance: null,
        treated: input.treated.length,
        control: input.control.length,
        detail: verdict.reason,
      };
    }
    const tolerance = toleranceOf(verdict, comparative);
    const tripped = verdict.verdict === "worse" && verdict.change > tolerance;
    return {
      key: verdict.metric.key,
      label: verdict.metric.label,
      status: (tripped ? "trip" : "pass") as GuardStatus,
      change: verdict.change,
      interval: verdict.interval,
      scale: verdict.scale,
      pValue: verdict.adjustedPValue,
      tolerance,
      treated: input.treated.length,
      control: input.control.length,
      detail: `${formatChange(verdict)} against ${verdict.basis}; ${verdict.verdict === "worse" ? "worse" : verdict.verdict === "better" ? "better" : "no measurable change"} (Holm-adjusted p = ${verdict.adjustedPValue.toPrecision(2)}, tolerance ${verdict.scale === "relative" ? `${comparative.relativeTolerancePercent} %` : comparative.absoluteTolerance})`,
    };
  });
  for (const input of notMeasured) {
    metrics.push({
      key: input.metric.key,
      label: input.metric.label,
      status: "not-measured",
      change: null,
      interval: null,
      scale: null,
      pValue: null,
      tolerance: null,
      treated: input.treated.length,
      control: input.control.length,
      detail: `not measured on the wave's servers (${input.metric.source})`,
    });
  }

  const basis =
    `difference in differences of each cost per I/O, the wave's ${treatedCount} server${treatedCount === 1 ? "" : "s"} against servers not yet changed (${windows.describe}); ` +
    `the same hours on previous days when none are left; Holm-corrected at ${Math.round(comparative.confidence * 100)} %`;
  const trips = metrics.filter((m) => m.status === "trip");
  if (trips.length > 0) {
    return {
      guard: "comparative",
      status: "trip",
      basis,
      metrics,
      summary: `Worse than the servers not yet changed: ${trips.map((m) => `${m.label} ${m.scale === "relative" ? percent(m.change!) : `${m.change! >= 0 ? "+" : ""}${m.change!.toPrecision(3)}`}`).join("; ")}.`,
    };
  }
  const short = metrics.filter((m) => m.status === "not-enough-data");
  if (short.length > 0) {
    return {
      guard: "comparative",
      status: "not-enough-data",
      basis,
      metrics,
      summary: `${short.map((m) => m.label).join(", ")}: ${short[0]!.detail}.`,
    };
  }
  if (metrics.every((m) => m.status === "not-measured")) {
    return {
      guard: "comparative",
      status: "not-measured",
      basis,
      metrics,
      summary: "None of the compared costs per I/O is measured on the wave's servers.",
    };
  }
  const passed = metrics.filter((m) => m.status === "pass");
  return {
    guard: "comparative",
    status: "pass",
    basis,
    metrics,
    summary: `No regression against the servers not yet changed on ${passed.length} metric${passed.length === 1 ? "" : "s"}: ${passed.map((m) => m.label).join(", ")}.`,
  };
}
