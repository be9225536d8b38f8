// The report page's figures, derived from the agent's report alone: per load step the
// throughput and response time without and with the features and the change with its interval;
// the saturation point per workload where mean response time crosses the user's limit. A side
// that was not measured stays null (the page says "not measured"), never 0. A change is stated
// only from a finished run whose agent formed an interval; one whose interval includes 0 reads
// "no measurable difference".
import type { ProofRunReport, CausedReads, Change, Difference, StepResult } from "../types/proof-run";

export interface StepRow {
  index: number;
  workload: string;
  label: string;
  /** IOPS for the generator profiles, TPS for pgbench. */
  throughputWithout: number | null;
  throughputWith: number | null;
  throughputChange: Difference;
  latencyMsWithout: number | null;
  latencyMsWith: number | null;
  latencyChange: Difference;
  p95MsWithout: number | null;
  p95MsWith: number | null;
  p99MsWithout: number | null;
  p99MsWith: number | null;
  mbpsWithout: number | null;
  mbpsWith: number | null;
}

export interface SaturationPoint {
  workload: string;
  side: "without" | "with";
  /** The first step whose mean response time crosses the limit; null when none did. */
  step: { index: number; label: string; latencyMs: number } | null;
  /** The highest step measured below the limit (the load it sustained), null when none. */
  lastBelow: { index: number; label: string; throughput: number } | null;
}

export function throughputOf(result: StepResult | null, unit: ProofRunReport["throughput"]): number | null {
  if (!result) return null;
  if (unit === "tps") return result.tps ?? null;
  return result.iops;
}

const ms = (seconds: number | undefined | null) => (seconds === undefined || seconds === null ? null : seconds * 1000);

export const incompleteReason = "the run did not finish: a change is stated only from a finished run";
export const noIntervalReason = "the agent that ran it formed no interval (update the agent): no change is stated";

export function notMeasured(reason: string): Difference {
  return { status: "not-measured", percent: null, lowPercent: null, highPercent: null, pairs: 0, reason };
}

/** A change as the page may state it: none for an incomplete run or a report without intervals. */
export function statedChange(report: ProofRunReport, change: Change | null): Change {
  if (!report.complete) return { throughput: notMeasured(incompleteReason), latencyMean: notMeasured(incompleteReason) };
  if (change === null) return { throughput: notMeasured(noIntervalReason), latencyMean: notMeasured(noIntervalReason) };
  return change;
}

/** What the read cache caused, with the same guards: null figures for an incomplete run or an old report. */
export function statedCausedReads(report: ProofRunReport): CausedReads {
  const caused = report.reads.caused;
  const reason = !report.complete ? incompleteReason : caused === null ? noIntervalReason : null;
  if (caused !== null && reason === null) return caused;
  return {
    status: "not-measured",
    reason: reason ?? noIntervalReason,
    storageSharePercentOff: null,
    storageSharePercentOn: null,
    shareChangePoints: null,
    shareChangeLowPoints: null,
    shareChangeHighPoints: null,
    readsWith: caused?.readsWith ?? 0,
    storageReadsSaved: null,
    storageReadsSavedLow: null,
    storageReadsSavedHigh: null,
    pairs: caused?.pairs ?? 0,
    basis: caused?.basis ?? "",
  };
}

export function stepRows(report: ProofRunReport): StepRow[] {
  return report.steps.map((step) => {
    const change = statedChange(report, step.change);
    return {
      index: step.index,
      workload: step.workload,
      label: step.label,
      throughputWithout: throughputOf(step.off, report.throughput),
      throughputWith: throughputOf(step.on, report.throughput),
      throughputChange: change.throughput,
      latencyMsWithout: ms(step.off?.latencyMeanSeconds),
      latencyMsWith: ms(step.on?.latencyMeanSeconds),
      latencyChange: change.latencyMean,
      p95MsWithout: ms(step.off?.latencyP95Seconds),
      p95MsWith: ms(step.on?.latencyP95Seconds),
      p99MsWithout: ms(step.off?.latencyP99Seconds),
      p99MsWith: ms(step.on?.latencyP99Seconds),
      mbpsWithout: step.off?.mbps ?? null,
      mbpsWith: step.on?.mbps ?? null,
    };
  });
}

/** The run's headline: the change across all steps, with the same guards as a step's. */
export function overallChange(report: ProofRunReport) {
  return statedChange(report, report.overall);
}

const signed = (value: number) => {
  const rounded = Math.abs(value) >= 1000 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${rounded > 0 ? "+" : rounded < 0 ? "−" : ""}${Math.abs(rounded).toLocaleString("en-GB", { maximumFractionDigits: 1 })}`;
};

/** "+6.3 % (+2.1 to +10.7 %)", "no measurable difference (−3.1 to +4.2 %)" or "not measured". */
export function differenceText(d: Difference, unit = "%"): string {
  if (d.status === "not-measured" || d.percent === null || d.lowPercent === null || d.highPercent === null) return "not measured";
  const interval = `${signed(d.lowPercent)} to ${signed(d.highPercent)} ${unit}`;
  if (d.status === "no-measurable-difference") return `no measurable difference (${interval})`;
  return `${signed(d.percent)} ${unit} (${interval})`;
}

/** The write path's prevented fragments, with "too few files to tell" where no interval can be had. */
export function fragmentsPrevented(report: ProofRunReport): Difference {
  const writePath = report.writePath;
  if (!writePath) return notMeasured("no log file in this profile");
  if (!report.complete) return notMeasured(incompleteReason);
  return writePath.fragmentsPrevented ?? notMeasured("too few files to tell: the agent that ran it formed no interval");
}

/** Per workload and side, where mean response time first crosses limitMs (steps in load order). */
export function saturationPoints(rows: StepRow[], limitMs: number): SaturationPoint[] {
  const workloads = [...new Set(rows.map((row) => row.workload))];
  const points: SaturationPoint[] = [];
  for (const workload of workloads) {
    const steps = rows.filter((row) => row.workload === workload);
    for (const side of ["without", "with"] as const) {
      const latency = (row: StepRow) => (side === "without" ? row.latencyMsWithout : row.latencyMsWith);
      const throughput = (row: StepRow) => (side === "without" ? row.throughputWithout : row.throughputWith);
      const measured = steps.filter((row) => latency(row) !== null);
      if (measured.length === 0) continue;
      const crossing = measured.find((row) => (latency(row) ?? 0) > limitMs);
      const below = measured.filter((row) => crossing === undefined || row.index < crossing.index);
      const last = below.at(-1);
      points.push({
        workload,
        side,
        step: crossing ? { index: crossing.index, label: crossing.label, latencyMs: latency(crossing) ?? 0 } : null,
        lastBelow: last && throughput(last) !== null ? { index: last.index, label: last.label, throughput: throughput(last) ?? 0 } : null,
      });
    }
  }
  return points;
}
