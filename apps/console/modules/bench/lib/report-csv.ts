// The report as CSV: one line per load step, without and with side by side. Empty cells are
// figures that were not measured; a reader never mistakes them for 0.
import { csvDocument, type CsvValue } from "@/lib/csv";
import type { BenchReport } from "../types/bench";
import { stepRows } from "./report-view";

const columns = [
  "step", "workload", "load", "throughput_unit",
  "throughput_without", "throughput_with", "throughput_change_percent",
  "latency_mean_ms_without", "latency_mean_ms_with", "latency_mean_change_percent",
  "latency_p95_ms_without", "latency_p95_ms_with", "latency_p99_ms_without", "latency_p99_ms_with",
  "mbps_without", "mbps_with",
] as const;

/** Figures keep six significant digits; text and quoting are the shared writer's (lib/csv.ts). */
function cell(value: CsvValue): CsvValue {
  return typeof value === "number" && Number.isFinite(value) ? Number(value.toPrecision(6)) : value;
}

export function reportCsv(report: BenchReport): string {
  const unit = report.throughput === "tps" ? "TPS" : "IOPS";
  const rows: CsvValue[][] = [[...columns]];
  for (const row of stepRows(report)) {
    const load = row.label.startsWith(`${row.workload}, `) ? row.label.slice(row.workload.length + 2) : row.label;
    rows.push(
      [
        row.index, row.workload, load, unit,
        row.throughputWithout, row.throughputWith, row.throughputChangePercent,
        row.latencyMsWithout, row.latencyMsWith, row.latencyChangePercent,
        row.p95MsWithout, row.p95MsWith, row.p99MsWithout, row.p99MsWith,
        row.mbpsWithout, row.mbpsWith,
      ].map(cell),
    );
  }
  return csvDocument(rows);
}
