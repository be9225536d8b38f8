// The report as CSV: one line per load step, without and with side by side. Empty cells are
// figures that were not measured; a reader never mistakes them for 0.
import type { BenchReport } from "../types/bench";
import { stepRows } from "./report-view";

const columns = [
  "step", "workload", "load", "throughput_unit",
  "throughput_without", "throughput_with", "throughput_change_percent",
  "latency_mean_ms_without", "latency_mean_ms_with", "latency_mean_change_percent",
  "latency_p95_ms_without", "latency_p95_ms_with", "latency_p99_ms_without", "latency_p99_ms_with",
  "mbps_without", "mbps_with",
] as const;

function cell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(Number(value.toPrecision(6))) : "";
  // RFC 4180 quoting, and a leading = + - @ neutralised so a spreadsheet never runs it.
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function reportCsv(report: BenchReport): string {
  const unit = report.throughput === "tps" ? "TPS" : "IOPS";
  const lines = [columns.join(",")];
  for (const row of stepRows(report)) {
    const load = row.label.startsWith(`${row.workload}, `) ? row.label.slice(row.workload.length + 2) : row.label;
    lines.push(
      [
        row.index, row.workload, load, unit,
        row.throughputWithout, row.throughputWith, row.throughputChangePercent,
        row.latencyMsWithout, row.latencyMsWith, row.latencyChangePercent,
        row.p95MsWithout, row.p95MsWith, row.p99MsWithout, row.p99MsWith,
        row.mbpsWithout, row.mbpsWith,
      ].map(cell).join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}
