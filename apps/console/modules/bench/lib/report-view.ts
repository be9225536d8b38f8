// The report page's figures, derived from the agent's report alone: per load step the
// throughput and response time without and with the features and the change; the saturation
// point per workload where mean response time crosses the user's limit. A side that was not
// measured stays null (the page says "not measured"), never 0.
import type { BenchReport, StepResult } from "../types/bench";

export interface StepRow {
  index: number;
  workload: string;
  label: string;
  /** IOPS for the generator profiles, TPS for pgbench. */
  throughputWithout: number | null;
  throughputWith: number | null;
  throughputChangePercent: number | null;
  latencyMsWithout: number | null;
  latencyMsWith: number | null;
  latencyChangePercent: number | null;
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

export function throughputOf(result: StepResult | null, unit: BenchReport["throughput"]): number | null {
  if (!result) return null;
  if (unit === "tps") return result.tps ?? null;
  return result.iops;
}

const ms = (seconds: number | undefined | null) => (seconds === undefined || seconds === null ? null : seconds * 1000);

/** (with − without) / without in percent; null when either is missing or without is 0. */
export function changePercent(without: number | null, withFeatures: number | null): number | null {
  if (without === null || withFeatures === null || without === 0) return null;
  return ((withFeatures - without) / without) * 100;
}

export function stepRows(report: BenchReport): StepRow[] {
  return report.steps.map((step) => {
    const throughputWithout = throughputOf(step.off, report.throughput);
    const throughputWith = throughputOf(step.on, report.throughput);
    const latencyMsWithout = ms(step.off?.latencyMeanSeconds);
    const latencyMsWith = ms(step.on?.latencyMeanSeconds);
    return {
      index: step.index,
      workload: step.workload,
      label: step.label,
      throughputWithout,
      throughputWith,
      throughputChangePercent: changePercent(throughputWithout, throughputWith),
      latencyMsWithout,
      latencyMsWith,
      latencyChangePercent: changePercent(latencyMsWithout, latencyMsWith),
      p95MsWithout: ms(step.off?.latencyP95Seconds),
      p95MsWith: ms(step.on?.latencyP95Seconds),
      p99MsWithout: ms(step.off?.latencyP99Seconds),
      p99MsWith: ms(step.on?.latencyP99Seconds),
      mbpsWithout: step.off?.mbps ?? null,
      mbpsWith: step.on?.mbps ?? null,
    };
  });
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

/** Mean of the step changes that exist, as the seed reports' headline ("+55 % TPS on average"). */
export function meanChange(values: (number | null)[]): number | null {
  const present = values.filter((value): value is number => value !== null);
  if (present.length === 0) return null;
  return present.reduce((sum, value) => sum + value, 0) / present.length;
}
