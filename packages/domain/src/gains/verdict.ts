// The before/after verdict of one per-I/O metric around a policy change: the ratio of sums in each
// matched window, a bootstrap interval on the difference, and a plain answer. "better" or "worse"
// only when the whole interval lies on one side of zero; too few units or I/Os on either side is
// "not enough data", never a verdict.
import { bootstrapDifference, ratioOfSums, type RatioUnit } from "./bootstrap.js";

export type VerdictMetricKey = "meanReadLatency" | "pageCacheMissRatio" | "splitIosPerIo" | "storageReadsPerAccess";

export interface VerdictMetric {
  key: VerdictMetricKey;
  label: string;
  unit: string;
  /** Where its units come from, for the basis line. */
  source: string;
  /** What the denominator counts, for "12,345 reads". */
  denominatorUnit: string;
}

/** All four are costs per I/O: lower is better. */
export const verdictMetrics: Record<VerdictMetricKey, VerdictMetric> = {
  meanReadLatency: { key: "meanReadLatency", label: "Mean storage read latency", unit: "s", source: "eBPF latency histogram (disk_latency, reads)", denominatorUnit: "reads" },
  pageCacheMissRatio: { key: "pageCacheMissRatio", label: "Page-cache miss ratio", unit: "1", source: "eBPF page-cache counters (page_cache)", denominatorUnit: "page accesses" },
  splitIosPerIo: { key: "splitIosPerIo", label: "Split I/Os per I/O", unit: "1", source: "eBPF split counter (disk_split_io) over diskstats I/Os (disk_io)", denominatorUnit: "I/Os" },
  storageReadsPerAccess: { key: "storageReadsPerAccess", label: "Storage reads per page access", unit: "1", source: "diskstats reads (disk_io) over eBPF page accesses (page_cache)", denominatorUnit: "page accesses" },
};

export const verdictDefaults = { seed: 20261123, iterations: 2000, confidence: 0.95, minimumUnits: 10, minimumDenominator: 100 };

export interface WindowSummary {
  value: number;
  /** Units (intervals or buckets) with I/O. */
  units: number;
  /** Sum of denominators: reads, accesses, I/Os. */
  denominator: number;
}

export type MetricVerdict =
  | {
    status: "verdict";
    metric: VerdictMetric;
    verdict: "better" | "worse" | "no-measurable-change";
    before: WindowSummary;
    after: WindowSummary;
    difference: number;
    interval: { low: number; high: number; confidence: number; iterations: number; seed: number };
  }
  | { status: "not-enough-data"; metric: VerdictMetric; reason: string };

function summarise(units: readonly RatioUnit[]): WindowSummary {
  return { value: ratioOfSums(units), units: units.length, denominator: units.reduce((sum, unit) => sum + unit.denominator, 0) };
}

export function compareWindows(
  metric: VerdictMetric,
  beforeUnits: readonly RatioUnit[],
  afterUnits: readonly RatioUnit[],
  options: Partial<typeof verdictDefaults> = {},
): MetricVerdict {
  const settings = { ...verdictDefaults, ...options };
  const usable = (units: readonly RatioUnit[]) => units.filter((unit) => unit.denominator > 0 && Number.isFinite(unit.numerator));
  const before = usable(beforeUnits);
  const after = usable(afterUnits);
  for (const [side, units] of [["before", before], ["after", after]] as const) {
    if (units.length < settings.minimumUnits) {
      return { status: "not-enough-data", metric, reason: `${units.length} intervals with ${metric.denominatorUnit} ${side} the change; at least ${settings.minimumUnits} are needed` };
    }
    const denominator = units.reduce((sum, unit) => sum + unit.denominator, 0);
    if (denominator < settings.minimumDenominator) {
      return { status: "not-enough-data", metric, reason: `${denominator} ${metric.denominatorUnit} ${side} the change; at least ${settings.minimumDenominator} are needed` };
    }
  }
  const beforeSummary = summarise(before);
  const afterSummary = summarise(after);
  const interval = bootstrapDifference(before, after, settings);
  const verdict = interval.high < 0 ? "better" : interval.low > 0 ? "worse" : "no-measurable-change";
  return {
    status: "verdict",
    metric,
    verdict,
    before: beforeSummary,
    after: afterSummary,
    difference: afterSummary.value - beforeSummary.value,
    interval: { low: interval.low, high: interval.high, confidence: settings.confidence, iterations: settings.iterations, seed: settings.seed },
  };
}
