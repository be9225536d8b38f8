// One applied change, judged on every metric with the best comparison its data allows, then
// corrected for the number of metrics (Holm) at the alpha of the look (provisional or final).
// The method is chosen by what data exists, before any value is looked at, so the choice cannot
// lean towards a verdict:
//   1. the same window on the previous days (placebo predictions), when four or more days have it:
//      the server against its own history, the most powerful for one server (docs/gains.md);
//   2. servers not yet changed (difference in differences), when three or more have data: a new
//      server with little history, and whatever moved the whole fleet cancels;
//   3. a block bootstrap of 1-minute buckets against the previous day, above an effective-sample
//      floor, only for the final reading of a whole day;
//   4. otherwise "not enough data", with each method's reason.
import { holm } from "../../stats/holm.js";
import type { RatioUnit } from "../../stats/ratio.js";
import { compareByBlockBootstrap, blockBootstrapDefaults } from "./block-bootstrap.js";
import { differenceInDifferences, concurrentControlDefaults, type ServerWindows } from "./concurrent-control.js";
import { intervalOf, pValueOf, type ScaleEstimate } from "./estimate.js";
import type { Look } from "./horizon.js";
import type { VerdictMetric } from "./metrics.js";
import { compareWithPreviousDays, previousDaysDefaults } from "./previous-days.js";
import { changeFromScale, type Scale, type WindowSums } from "./window-sums.js";

export type VerdictMethod = "previous-days" | "concurrent-control" | "block-bootstrap";

export interface MetricEvidence {
  metric: VerdictMetric;
  /** The changed server's sums over the after window of the look. */
  after: WindowSums;
  /** The same window 1, 2, … days earlier (index 0 = one day before); null where nothing was sent. */
  previousDays: readonly (WindowSums | null)[];
  /** Servers not yet changed over the same calendar windows (the changed server among `treated`). */
  concurrent: { treated: ServerWindows[]; control: ServerWindows[]; beforeWindow: string } | null;
  /**
   * Consecutive 1-minute buckets of the after window and of an earlier window, for the fallback;
   * a function when reading them costs something (it is called only when the fallback is used).
   */
  minutes: MinuteEvidence | null | (() => MinuteEvidence | null);
}

export interface MinuteEvidence {
  before: RatioUnit[];
  after: RatioUnit[];
  /** "the same hours of the previous day", for the basis line. */
  beforeWindow: string;
}

export type MetricVerdict =
  | {
      status: "verdict";
      metric: VerdictMetric;
      stage: "provisional" | "final";
      verdict: "better" | "worse" | "no-measurable-change";
      method: VerdictMethod;
      /** One sentence naming the method and what it rests on. */
      basis: string;
      scale: Scale;
      /** The metric after the change, and what it would have been without it, in the metric's unit. */
      after: number;
      expected: number;
      /** After against expected: a fraction on the relative scale (−0.18 = −18 %), a difference on the absolute one. */
      change: number;
      interval: { low: number; high: number; confidence: number };
      pValue: number;
      /** Holm-adjusted over `metricsCompared` metrics. */
      adjustedPValue: number;
      metricsCompared: number;
      /** The family-wise alpha of this look. */
      alpha: number;
    }
  | { status: "not-enough-data"; metric: VerdictMetric; reason: string };

export const judgeDefaults = {
  previousDays: previousDaysDefaults,
  concurrentControl: concurrentControlDefaults,
  blockBootstrap: blockBootstrapDefaults,
};

interface Chosen {
  method: VerdictMethod;
  estimate: ScaleEstimate;
  after: number;
  expected: number;
  basis: string;
}

const count = (value: number) => Math.round(value).toLocaleString("en-US");

function choose(
  evidence: MetricEvidence,
  settings: typeof judgeDefaults,
  look: Extract<Look, { status: "look" }>,
): Chosen | { reason: string } {
  const unit = evidence.metric.denominatorUnit;
  const reasons: string[] = [];
  const days = compareWithPreviousDays(evidence.after, evidence.previousDays, unit, settings.previousDays);
  if (days.status === "compared") {
    return {
      method: "previous-days",
      estimate: days.estimate,
      after: days.after,
      expected: days.expected,
      basis: `placebo predictions from the same window on ${days.days.length} previous days (${count(evidence.after.denominator)} ${unit} after the change)`,
    };
  }
  reasons.push(`previous days: ${days.reason}`);
  if (evidence.concurrent) {
    const result = differenceInDifferences(evidence.concurrent.treated, evidence.concurrent.control, settings.concurrentControl);
    if (result.status === "compared") {
      return {
        method: "concurrent-control",
        estimate: result.estimate,
        after: result.after,
        expected: result.expected,
        basis: `difference in differences against ${result.control.length} servers not yet changed (before: ${evidence.concurrent.beforeWindow})`,
      };
    }
    reasons.push(`servers not yet changed: ${result.reason}`);
  } else {
    reasons.push("servers not yet changed: none to compare with");
  }
  if (look.stage !== "final" || look.afterMinutes < settings.blockBootstrap.minimumMinutes) {
    reasons.push(
      `block bootstrap: only at the final reading of an after window of at least ${settings.blockBootstrap.minimumMinutes / 60} hours`,
    );
    return { reason: reasons.join("; ") };
  }
  const minutes = typeof evidence.minutes === "function" ? evidence.minutes() : evidence.minutes;
  if (minutes) {
    const boot = compareByBlockBootstrap(minutes.before, minutes.after, unit, settings.blockBootstrap);
    if (boot.status === "compared") {
      const effective = `${Math.round(boot.effectiveSample.before)} before, ${Math.round(boot.effectiveSample.after)} after`;
      return {
        method: "block-bootstrap",
        estimate: boot.estimate,
        after: boot.after,
        expected: boot.before,
        basis:
          `block bootstrap of 1-minute buckets against ${minutes.beforeWindow} (${boot.iterations.toLocaleString("en-US")} resamples in blocks of ` +
          `${boot.blockMinutes.before}/${boot.blockMinutes.after} minutes; effective sample ${effective}); it cannot see how whole days differ`,
      };
    }
    reasons.push(`block bootstrap: ${boot.reason}`);
  } else {
    reasons.push("block bootstrap: no earlier window at the same hours (less than a day of telemetry before the change)");
  }
  return { reason: reasons.join("; ") };
}

/**
 * Whether the previous days can judge this metric, so a caller reads the servers not yet changed
 * only when they would be used.
 */
export function previousDaysSuffice(
  evidence: Pick<MetricEvidence, "metric" | "after" | "previousDays">,
  options: Partial<typeof judgeDefaults> = {},
): boolean {
  const settings = { ...judgeDefaults, ...options };
  return (
    compareWithPreviousDays(evidence.after, evidence.previousDays, evidence.metric.denominatorUnit, settings.previousDays).status ===
    "compared"
  );
}

/**
 * Whether judging this evidence at this look would read its 1-minute buckets (the fallback), so a
 * caller reads them from the database only then.
 */
export function needsMinutes(
  evidence: Omit<MetricEvidence, "minutes">,
  look: Extract<Look, { status: "look" }>,
  options: Partial<typeof judgeDefaults> = {},
): boolean {
  let asked = false;
  choose(
    {
      ...evidence,
      minutes: () => {
        asked = true;
        return null;
      },
    },
    { ...judgeDefaults, ...options },
    look,
  );
  return asked;
}

/** Every metric's verdict at one look; metrics without a comparison are "not enough data". */
export function judgeChange(
  evidence: readonly MetricEvidence[],
  look: Extract<Look, { status: "look" }>,
  options: Partial<typeof judgeDefaults> = {},
): MetricVerdict[] {
  const settings = { ...judgeDefaults, ...options };
  const chosen = evidence.map((entry) => ({ entry, choice: choose(entry, settings, look) }));
  const compared = chosen.filter((item): item is { entry: MetricEvidence; choice: Chosen } => "method" in item.choice);
  const decisions = holm(
    compared.map((item) => pValueOf(item.choice.estimate)),
    look.alpha,
  );
  const byMetric = new Map(compared.map((item, index) => [item.entry.metric.key, { choice: item.choice, decision: decisions[index]! }]));
  return chosen.map(({ entry, choice }): MetricVerdict => {
    const judged = byMetric.get(entry.metric.key);
    if (!judged) return { status: "not-enough-data", metric: entry.metric, reason: (choice as { reason: string }).reason };
    const { estimate } = judged.choice;
    const confidence = 1 - judged.decision.testedAlpha;
    const interval = intervalOf(estimate, confidence);
    const verdict = !judged.decision.rejected ? "no-measurable-change" : estimate.estimate < 0 ? "better" : "worse";
    return {
      status: "verdict",
      metric: entry.metric,
      stage: look.stage,
      verdict,
      method: judged.choice.method,
      basis: judged.choice.basis,
      scale: estimate.scale,
      after: judged.choice.after,
      expected: judged.choice.expected,
      change: changeFromScale(estimate.estimate, estimate.scale),
      interval: { low: changeFromScale(interval.low, estimate.scale), high: changeFromScale(interval.high, estimate.scale), confidence },
      pValue: pValueOf(estimate),
      adjustedPValue: judged.decision.adjustedP,
      metricsCompared: compared.length,
      alpha: look.alpha,
    };
  });
}
