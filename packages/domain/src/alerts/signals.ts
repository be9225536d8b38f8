// What an alert rule can watch: the alert signals. Each one is a catalogue metric or a signal
// derived from catalogue metrics with the same formulas the console charts use (derive.ts,
// latency.ts, ratios.ts), computed from column sums so a window of 1-minute buckets merges
// exactly. The worker fetches each source's columns (apps/worker/src/alerts/sources.ts); this
// file says what the numbers mean. One list, so a rule, its preview and docs/alerts.md agree.
import type { MetricName } from "../metrics/catalogue.js";
import { averageLatencyMs, averageQueueDepth, perSecond, utilisationPercent } from "../metrics/derive.js";
import { latencyBucketCount, latencyPercentile } from "../metrics/latency.js";
import { cacheHitRatioPercent } from "../metrics/ratios.js";

export const alertAggregations = ["avg", "sum", "max", "min", "last", "p50", "p90", "p95", "p99"] as const;
export type AlertAggregation = (typeof alertAggregations)[number];

/** The quantile of a percentile aggregation, null for the others. */
export function aggregationQuantile(aggregation: AlertAggregation): number | null {
  const match = /^p(\d\d)$/.exec(aggregation);
  return match ? Number(match[1]) / 100 : null;
}

/**
 * Where a signal's numbers come from. "buckets" sources are 1-minute aggregates (one row per
 * subject and minute, columns summed); "snapshot" sources are the current state of relational
 * rows (one row per subject, evaluated with `last`).
 */
export const bucketSources = [
  "disk_io",
  "disk_latency_read",
  "disk_latency_write",
  "disk_split_io",
  "page_cache",
  "read_cache",
  "agent_spool",
] as const;
export const snapshotSources = [
  "agent_liveness",
  "policy_status",
  "rollout_status",
  "ebpf_capabilities",
  "fragmentation_growth",
  "filesystem_fill",
] as const;
export type BucketSource = (typeof bucketSources)[number];
export type SnapshotSource = (typeof snapshotSources)[number];
export type AlertSource = BucketSource | SnapshotSource;

/** What a subject is for a signal: a server, one of its devices, scanned roots or mounted file systems. */
export type AlertSubjectLevel = "server" | "device" | "root" | "filesystem";

/** Summed columns of one bucket, a window, or a snapshot row, by column name. */
export type ColumnSums = Readonly<Record<string, number>>;

/**
 * A measured value, as an interval: exact values have low = high; a latency percentile is the
 * histogram bucket it falls in, (low, high]. Comparisons use the edge that makes the alert
 * certain (`>` compares low, `<` compares high), so bucket width never fires an alert by itself.
 */
export interface SignalReading {
  low: number;
  high: number;
}

export interface AlertSignal {
  id: string;
  label: string;
  unit: string;
  level: AlertSubjectLevel;
  source: AlertSource;
  /** The catalogue metrics this signal is computed from. */
  metrics: readonly MetricName[];
  aggregations: readonly AlertAggregation[];
  /** How the value is measured, for docs and for the console beside every figure. */
  basis: string;
  /**
   * The value from summed columns; `quantile` is set for percentile aggregations. null when
   * there was nothing to measure (no reads in the window, too little activity to judge): the
   * condition is then clear, which is different from no data at all.
   */
  read(sums: ColumnSums, quantile: number | null): SignalReading | null;
}

const exact = (value: number | null): SignalReading | null =>
  value === null || !Number.isFinite(value) ? null : { low: value, high: value };
const col = (sums: ColumnSums, name: string): number => sums[name] ?? 0;

/** Below this many I/Os in the window a latency percentile is one slow I/O, not a trend. */
export const minimumLatencyOperations = 100;
/** Below this many I/Os the split share is noise. */
export const minimumSplitShareOperations = 1000;
/** Below this many page accesses (40 MB of 4 KiB pages) a hit ratio says little. */
export const minimumPageCacheAccesses = 10_000;
/** A time-until-full prediction needs this many 1-minute buckets in its window (half an hour of data). */
export const minimumFillBuckets = 30;
/**
 * Only a file system with less than this share available is predicted (node-exporter mixin's
 * floor): a large, mostly empty volume shrinking fast is a trend, not yet a problem.
 */
export const fillFloorAvailablePercent = 40;
/** A device counts as saturated only while it was busy at least this share of the time. */
export const saturationUtilisationPercent = 90;

export const latencyBucketColumns: readonly string[] = Array.from(
  { length: latencyBucketCount },
  (_, i) => `bucket_${String(i).padStart(2, "0")}`,
);

function latencyReading(sums: ColumnSums, quantile: number | null): SignalReading | null {
  const operations = col(sums, "operations");
  if (operations < minimumLatencyOperations) return null;
  if (quantile === null) return exact((1000 * col(sums, "sum_seconds")) / operations);
  const percentile = latencyPercentile(
    latencyBucketColumns.map((c) => col(sums, c)),
    quantile,
  );
  if (percentile === null) return null;
  return { low: percentile.lowerSeconds * 1000, high: percentile.upperSeconds === null ? Infinity : percentile.upperSeconds * 1000 };
}

const diskIoMetrics = [
  "system.disk.operations",
  "system.disk.operation_time",
  "system.disk.io_time",
  "spindle.disk.weighted_io_time",
] as const satisfies readonly MetricName[];
const minuteAggregations = ["avg", "max", "min"] as const satisfies readonly AlertAggregation[];

export const alertSignals: readonly AlertSignal[] = [
  {
    id: "disk.utilisation",
    label: "Device utilisation",
    unit: "%",
    level: "device",
    source: "disk_io",
    metrics: ["system.disk.io_time"],
    aggregations: minuteAggregations,
    basis: "share of wall time the device had I/O in flight: io_time / interval, from /proc/diskstats (capped at 100 %)",
    read: (s) => exact(utilisationPercent(col(s, "io_time_ms"), col(s, "interval_seconds"))),
  },
  {
    id: "disk.queue_depth",
    label: "Average queue depth",
    unit: "I/Os",
    level: "device",
    source: "disk_io",
    metrics: ["spindle.disk.weighted_io_time"],
    aggregations: minuteAggregations,
    basis: "average I/Os in flight: weighted_io_time / interval, from /proc/diskstats",
    read: (s) => exact(averageQueueDepth(col(s, "weighted_io_time_ms"), col(s, "interval_seconds"))),
  },
  {
    id: "disk.saturation_queue_depth",
    label: "Queue depth of a saturated device",
    unit: "I/Os",
    level: "device",
    source: "disk_io",
    metrics: ["system.disk.io_time", "spindle.disk.weighted_io_time"],
    aggregations: minuteAggregations,
    basis: `average I/Os in flight, counted only while the device was busy at least ${saturationUtilisationPercent} % of the time (a device with spare time is not saturated), from /proc/diskstats`,
    read: (s) => {
      const busy = utilisationPercent(col(s, "io_time_ms"), col(s, "interval_seconds"));
      if (busy === null || busy < saturationUtilisationPercent) return null;
      return exact(averageQueueDepth(col(s, "weighted_io_time_ms"), col(s, "interval_seconds")));
    },
  },
  {
    id: "disk.read_iops",
    label: "Read IOPS",
    unit: "ops/s",
    level: "device",
    source: "disk_io",
    metrics: ["system.disk.operations"],
    aggregations: minuteAggregations,
    basis: "completed reads / interval, from /proc/diskstats",
    read: (s) => exact(perSecond(col(s, "read_ops"), col(s, "interval_seconds"))),
  },
  {
    id: "disk.write_iops",
    label: "Write IOPS",
    unit: "ops/s",
    level: "device",
    source: "disk_io",
    metrics: ["system.disk.operations"],
    aggregations: minuteAggregations,
    basis: "completed writes / interval, from /proc/diskstats",
    read: (s) => exact(perSecond(col(s, "write_ops"), col(s, "interval_seconds"))),
  },
  {
    id: "disk.read_latency_avg",
    label: "Average read latency (diskstats)",
    unit: "ms",
    level: "device",
    source: "disk_io",
    metrics: diskIoMetrics,
    aggregations: minuteAggregations,
    basis: "I/O-weighted mean: time spent on reads / reads completed, from /proc/diskstats",
    read: (s) => exact(averageLatencyMs(col(s, "read_time_ms"), col(s, "read_ops"))),
  },
  {
    id: "disk.write_latency_avg",
    label: "Average write latency (diskstats)",
    unit: "ms",
    level: "device",
    source: "disk_io",
    metrics: diskIoMetrics,
    aggregations: minuteAggregations,
    basis: "I/O-weighted mean: time spent on writes / writes completed, from /proc/diskstats",
    read: (s) => exact(averageLatencyMs(col(s, "write_time_ms"), col(s, "write_ops"))),
  },
  {
    id: "disk.read_latency",
    label: "Read latency (eBPF histogram)",
    unit: "ms",
    level: "device",
    source: "disk_latency_read",
    metrics: ["spindle.disk.io.latency"],
    aggregations: ["p50", "p90", "p95", "p99", "avg"],
    basis: `percentile of the window's merged log2 latency buckets (eBPF), or the exact mean; needs ${minimumLatencyOperations} reads in the window`,
    read: latencyReading,
  },
  {
    id: "disk.write_latency",
    label: "Write latency (eBPF histogram)",
    unit: "ms",
    level: "device",
    source: "disk_latency_write",
    metrics: ["spindle.disk.io.latency"],
    aggregations: ["p50", "p90", "p95", "p99", "avg"],
    basis: `percentile of the window's merged log2 latency buckets (eBPF), or the exact mean; needs ${minimumLatencyOperations} writes in the window`,
    read: latencyReading,
  },
  {
    id: "disk.split_io_share",
    label: "Split I/O share",
    unit: "%",
    level: "device",
    source: "disk_split_io",
    metrics: ["spindle.disk.split_operations", "system.disk.operations"],
    aggregations: ["avg", "max"],
    basis: `bios the block layer split (eBPF block:block_split) per completed I/O (/proc/diskstats); needs ${minimumSplitShareOperations} I/Os in the window`,
    read: (s) => {
      const operations = col(s, "operations");
      return operations < minimumSplitShareOperations ? null : exact((100 * col(s, "split_ops")) / operations);
    },
  },
  {
    id: "disk.split_iops",
    label: "Split I/Os per second",
    unit: "ops/s",
    level: "device",
    source: "disk_split_io",
    metrics: ["spindle.disk.split_operations"],
    aggregations: minuteAggregations,
    basis: "bios the block layer split (eBPF block:block_split) / interval",
    read: (s) => exact(perSecond(col(s, "split_ops"), col(s, "interval_seconds"))),
  },
  {
    id: "page_cache.hit_ratio",
    label: "Page-cache hit ratio",
    unit: "%",
    level: "server",
    source: "page_cache",
    metrics: ["spindle.page_cache.accesses", "spindle.page_cache.misses"],
    aggregations: ["avg", "min"],
    basis: `1 − misses / accesses of the page cache (eBPF), from sums; needs ${minimumPageCacheAccesses} accesses in the window`,
    read: (s) => (col(s, "accesses") < minimumPageCacheAccesses ? null : exact(cacheHitRatioPercent(col(s, "accesses"), col(s, "misses")))),
  },
  {
    id: "read_cache.backoffs",
    label: "Read-cache backoffs under memory pressure",
    unit: "events",
    level: "server",
    source: "read_cache",
    metrics: ["spindle.read_cache.backoffs"],
    aggregations: ["sum"],
    basis: "times the managed read cache gave memory back because the host ran short, summed over the window (agent's read cache)",
    read: (s) => (col(s, "backoffs_reported") > 0 ? exact(col(s, "backoffs")) : null),
  },
  {
    id: "agent.seconds_since_data",
    label: "Seconds since the agent's last telemetry",
    unit: "s",
    level: "server",
    source: "agent_liveness",
    metrics: [],
    aggregations: ["last"],
    basis: "now − the time the gateway last wrote a batch from this server (servers.last_seen_at; enrolment time until the first batch)",
    read: (s) => exact(col(s, "seconds_since_data")),
  },
  {
    id: "policy.failed",
    label: "Policy failed on the server",
    unit: "1 = failed",
    level: "server",
    source: "policy_status",
    metrics: [],
    aggregations: ["last"],
    basis: "the agent's latest OpAMP RemoteConfigStatus for its policy: 1 when FAILED, 0 otherwise",
    read: (s) => exact(col(s, "failed")),
  },
  {
    id: "policy.rolled_back",
    label: "Policy change rolled back on the server",
    unit: "1 = rolled back",
    level: "server",
    source: "rollout_status",
    metrics: [],
    aggregations: ["last"],
    basis:
      "a staged rollout rolled this server back to its previous policy (a guard tripped, or a person rolled it back) and is paused: 1 until the rollout is resumed or aborted, 0 otherwise",
    read: (s) => exact(col(s, "rolled_back")),
  },
  {
    id: "agent.ebpf_capabilities_lost",
    label: "eBPF capabilities lost",
    unit: "capabilities",
    level: "server",
    source: "ebpf_capabilities",
    metrics: ["spindle.disk.io.latency", "spindle.disk.split_operations", "spindle.page_cache.accesses"],
    aggregations: ["last"],
    basis:
      "eBPF capabilities (block latency, block split, page cache) whose data the server sent within the window but which its newest batch no longer reports",
    read: (s) => exact(col(s, "lost")),
  },
  {
    id: "fragmentation.excess_extents_growth",
    label: "Growth of excess extents",
    unit: "%",
    level: "root",
    source: "fragmentation_growth",
    metrics: ["spindle.fragmentation.excess_extents"],
    aggregations: ["last"],
    basis:
      "excess extents of the newest FIEMAP scan of a root against its newest scan at least one window older, in %; needs 1,000 excess extents at the start",
    read: (s) => {
      const before = col(s, "excess_before");
      return col(s, "has_before") > 0 && before >= 1000 ? exact((100 * (col(s, "excess_now") - before)) / before) : null;
    },
  },
  {
    id: "filesystem.hours_until_full",
    label: "Hours until the file system is full",
    unit: "h",
    level: "filesystem",
    source: "filesystem_fill",
    metrics: ["system.filesystem.usage", "system.filesystem.limit"],
    aggregations: ["last"],
    basis: `linear prediction (least squares over the window's 1-minute means of available bytes, statfs f_bavail) of when available space reaches 0; only while less than ${fillFloorAvailablePercent} % is available, space is shrinking, and the window has ${minimumFillBuckets} minutes of data`,
    read: (s) => {
      if (col(s, "buckets") < minimumFillBuckets || col(s, "size_bytes") <= 0) return null;
      if ((100 * col(s, "available_bytes")) / col(s, "size_bytes") >= fillFloorAvailablePercent) return null;
      const slope = col(s, "slope_bytes_per_second");
      if (!(slope < 0)) return null; // not shrinking: never full on this trend
      return exact(Math.max(0, col(s, "fitted_available_bytes")) / -slope / 3600);
    },
  },
  {
    id: "agent.spool_pending_batches",
    label: "Batches waiting in the agent's spool",
    unit: "batches",
    level: "server",
    source: "agent_spool",
    metrics: ["spindle.agent.spool.batches"],
    aggregations: minuteAggregations,
    basis: "batches the agent has spooled and the gateway not yet acknowledged, mean of the agent's per-interval samples",
    read: (s) => (col(s, "samples") > 0 ? exact(col(s, "pending_batches") / col(s, "samples")) : null),
  },
  {
    id: "agent.spool_size",
    label: "Size of the agent's spool",
    unit: "MB",
    level: "server",
    source: "agent_spool",
    metrics: ["spindle.agent.spool.size"],
    aggregations: minuteAggregations,
    basis: "bytes the agent has spooled and the gateway not yet acknowledged, mean of the agent's per-interval samples, in MB (10^6 bytes)",
    read: (s) => (col(s, "samples") > 0 ? exact(col(s, "spool_bytes") / col(s, "samples") / 1e6) : null),
  },
];

export function findAlertSignal(id: string): AlertSignal | undefined {
  return alertSignals.find((signal) => signal.id === id);
}

export function isSnapshotSource(source: AlertSource): source is SnapshotSource {
  return (snapshotSources as readonly string[]).includes(source);
}
