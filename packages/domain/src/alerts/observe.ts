// From a subject's rows to one observation of a rule: aggregate the window's 1-minute buckets
// with the rule's aggregation, compare with the threshold, or tell no data from "not yet".
import type { AlertCondition, AlertComparison } from "./schema.js";
import { aggregationQuantile, isSnapshotSource, type AlertSignal, type ColumnSums, type SignalReading } from "./signals.js";
import type { AlertObservation } from "./state-machine.js";

export const bucketMillis = 60_000;

/** One row of a source: a 1-minute bucket (start = its start) or a snapshot row (start = the evaluation time). */
export interface SourceRow {
  start: number;
  sums: ColumnSums;
}

export interface RuleObservation {
  observation: AlertObservation;
  /** The value compared with the threshold; null when nothing was measured. */
  value: number | null;
}

/** Adds columns of several buckets: every column is a sum or count, so the window merges exactly. */
export function addColumnSums(rows: readonly SourceRow[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const row of rows) for (const [name, value] of Object.entries(row.sums)) total[name] = (total[name] ?? 0) + value;
  return total;
}

/**
 * Whether a reading breaches: `>` and `>=` compare the low edge, `<` and `<=` the high edge,
 * so only a value certainly beyond the threshold counts (a latency bucket straddling it does not).
 * Returns the edge compared, which is the value history records.
 */
export function compareReading(reading: SignalReading, comparison: AlertComparison, threshold: number): { breach: boolean; value: number } {
  const above = comparison === ">" || comparison === ">=";
  const edge = above ? reading.low : reading.high;
  const value = Number.isFinite(edge) ? edge : above ? reading.high : reading.low;
  const breach =
    comparison === ">"
      ? edge > threshold
      : comparison === ">="
        ? edge >= threshold
        : comparison === "<"
          ? edge < threshold
          : edge <= threshold;
  return { breach, value };
}

/** The window's reading with the rule's aggregation; null when nothing in it was measurable. */
export function aggregateWindow(signal: AlertSignal, condition: AlertCondition, rows: readonly SourceRow[]): SignalReading | null {
  if (rows.length === 0) return null;
  const quantile = aggregationQuantile(condition.aggregation);
  switch (condition.aggregation) {
    case "max":
    case "min": {
      const readings = rows.map((row) => signal.read(row.sums, null)).filter((r): r is SignalReading => r !== null);
      if (readings.length === 0) return null;
      const pick = condition.aggregation === "max" ? Math.max : Math.min;
      return { low: pick(...readings.map((r) => r.low)), high: pick(...readings.map((r) => r.high)) };
    }
    case "last": {
      const newest = rows.reduce((a, b) => (b.start > a.start ? b : a));
      return signal.read(newest.sums, null);
    }
    default:
      // avg, sum and percentiles: the signal's formula over the window's summed columns (a
      // rate, a ratio of sums, a total, or a percentile of merged histogram buckets).
      return signal.read(addColumnSums(rows), quantile);
  }
}

/**
 * One evaluation of a rule for one subject at `at` (ms). `rows` are the subject's rows fetched
 * for at least the last max(window, no-data duration); buckets starting in [at − window, at) form
 * the window. No rows in the window: "grace" until the newest data is noDataSeconds old, then
 * "no_data". Snapshot sources always have their one row.
 */
export function observeRule(signal: AlertSignal, condition: AlertCondition, rows: readonly SourceRow[], at: number): RuleObservation {
  const windowStart = at - condition.windowSeconds * 1000;
  const inWindow = isSnapshotSource(signal.source) ? rows : rows.filter((row) => row.start >= windowStart && row.start < at);
  if (inWindow.length === 0) {
    const newestEnd = rows.reduce((newest, row) => Math.max(newest, Math.min(at, row.start + bucketMillis)), -Infinity);
    const silentFor = at - newestEnd;
    return { observation: silentFor >= condition.noDataSeconds * 1000 ? "no_data" : "grace", value: null };
  }
  const reading = aggregateWindow(signal, condition, inWindow);
  if (reading === null) return { observation: "clear", value: null };
  const { breach, value } = compareReading(reading, condition.comparison, condition.threshold);
  return { observation: breach ? "breach" : "clear", value };
}
