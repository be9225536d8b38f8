// The report as CSV: one line per load step, without and with side by side, then the overall
// change. Each change has its wording ("measured", "no measurable difference", "not measured:
// why"), its figure only when measured, and its interval whenever one was formed. Empty cells are
// figures that were not measured; a reader never mistakes them for 0.
import { csvDocument, type CsvValue } from "@/lib/csv";
import type { ProofRunReport, Difference } from "../types/proof-run";
import { overallChange, stepRows } from "./report-view";

const columns = [
  "step",
  "workload",
  "load",
  "throughput_unit",
  "throughput_without",
  "throughput_with",
  "throughput_change",
  "throughput_change_percent",
  "throughput_change_low_percent",
  "throughput_change_high_percent",
  "latency_mean_ms_without",
  "latency_mean_ms_with",
  "latency_mean_change",
  "latency_mean_change_percent",
  "latency_mean_change_low_percent",
  "latency_mean_change_high_percent",
  "latency_p95_ms_without",
  "latency_p95_ms_with",
  "latency_p99_ms_without",
  "latency_p99_ms_with",
  "mbps_without",
  "mbps_with",
  "pass_pairs",
] as const;

/** Figures keep six significant digits; text and quoting are the shared writer's (lib/csv.ts). */
function cell(value: CsvValue): CsvValue {
  return typeof value === "number" && Number.isFinite(value) ? Number(value.toPrecision(6)) : value;
}

/** The wording, the figure (measured only) and the interval of one change. */
export function changeCells(d: Difference): CsvValue[] {
  const wording =
    d.status === "measured"
      ? "measured"
      : d.status === "no-measurable-difference"
        ? "no measurable difference"
        : `not measured: ${d.reason}`;
  return [wording, d.status === "measured" ? d.percent : null, d.lowPercent, d.highPercent];
}

export function reportCsv(report: ProofRunReport): string {
  const unit = report.throughput === "tps" ? "TPS" : "IOPS";
  const rows: CsvValue[][] = [[...columns]];
  for (const row of stepRows(report)) {
    const load = row.label.startsWith(`${row.workload}, `) ? row.label.slice(row.workload.length + 2) : row.label;
    rows.push(
      [
        row.index,
        row.workload,
        load,
        unit,
        row.throughputWithout,
        row.throughputWith,
        ...changeCells(row.throughputChange),
        row.latencyMsWithout,
        row.latencyMsWith,
        ...changeCells(row.latencyChange),
        row.p95MsWithout,
        row.p95MsWith,
        row.p99MsWithout,
        row.p99MsWith,
        row.mbpsWithout,
        row.mbpsWith,
        row.throughputChange.pairs || null,
      ].map(cell),
    );
  }
  const overall = overallChange(report);
  rows.push(
    [
      "overall",
      "all steps (geometric mean)",
      "",
      unit,
      null,
      null,
      ...changeCells(overall.throughput),
      null,
      null,
      ...changeCells(overall.latencyMean),
      null,
      null,
      null,
      null,
      null,
      null,
      overall.throughput.pairs || null,
    ].map(cell),
  );
  return csvDocument(rows);
}

const passColumns = [
  "step",
  "workload",
  "load",
  "pass",
  "side",
  "warm_up",
  "throughput_unit",
  "throughput",
  "mbps",
  "latency_mean_ms",
  "latency_p95_ms",
  "latency_p99_ms",
  "operations",
] as const;

/** Every pass of every step as measured, the warm-up pass marked (it is never compared). */
export function reportPassesCsv(report: ProofRunReport): string {
  const unit = report.throughput === "tps" ? "TPS" : "IOPS";
  const rows: CsvValue[][] = [[...passColumns]];
  for (const step of report.steps) {
    const load = step.label.startsWith(`${step.workload}, `) ? step.label.slice(step.workload.length + 2) : step.label;
    for (const pass of step.passes ?? []) {
      rows.push(
        [
          step.index,
          step.workload,
          load,
          pass.pass,
          pass.side,
          pass.warmUp ? "yes" : "no",
          unit,
          pass.throughput,
          pass.mbps,
          pass.latencyMeanSeconds * 1000,
          pass.latencyP95Seconds * 1000,
          pass.latencyP99Seconds * 1000,
          pass.operations,
        ].map(cell),
      );
    }
  }
  return csvDocument(rows);
}
