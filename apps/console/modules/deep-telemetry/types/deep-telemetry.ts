import type { MetricsRange } from "@/modules/metrics/types/metrics";

/** One capability of the server's agent, as the console shows it. */
export interface CapabilityStatus {
  name: string;
  label: string;
  available: boolean;
  /** Why it is usually missing and what to do; empty when available. */
  whenMissing: string;
}

export interface Capabilities {
  /** When the agent last reported them; null: never (an older agent, or no batch yet). */
  reportedAt: string | null;
  items: CapabilityStatus[];
}

/**
 * The I/Os the disks completed (their own counters) that the latency histograms do not hold
 * (spindle.disk.io.untimed), over the range. Not measured when the agent did not count them (an
 * agent from before the count, Windows, flushes, bio-based disks): then there is no figure, never 0.
 */
export type UntimedIos =
  | {
      status: "measured";
      /** Untimed I/Os in the range. */
      operations: number;
      /** Their share of the completions, in percent, over the points that counted them. */
      sharePercent: number | null;
      /** Timed I/Os in points without a count (not part of the share); 0 when every point counted. */
      uncountedTimedOperations: number;
    }
  | { status: "not-measured"; reason: string };

/** Latency percentiles of one device and operation, columnar; values are bucket upper edges in ms. */
export interface LatencySeries {
  device: string;
  operation: string;
  time: number[];
  p50Ms: (number | null)[];
  p95Ms: (number | null)[];
  p99Ms: (number | null)[];
  /**
   * Over the whole range, from merged buckets; operations are the timed I/Os. A device and
   * operation whose every completion went untimed has 0 and "not measured" percentiles.
   */
  summary: { operations: number; p50: string; p95: string; p99: string; averageMs: number | null };
  /** The basis of the figures: how many completions they leave out. */
  untimed: UntimedIos;
}

export interface SplitIoSeries {
  device: string;
  time: number[];
  splitIosPerSecond: (number | null)[];
  /** Split I/Os per second over the whole range. */
  averagePerSecond: number | null;
}

export interface CacheHitSeries {
  time: number[];
  hitRatioPercent: (number | null)[];
  /** Over the whole range: 1 − Σmisses / Σaccesses. */
  overallPercent: number | null;
}

/** One of the files with the most page-cache accesses in the newest reported interval. */
export interface CacheTopFile {
  /** The file's path, or its inode on its mount point with what the agent tried (lib/file-name.ts). */
  path: string;
  accesses: number;
  misses: number;
  /** 1 − misses / accesses. */
  hitRatioPercent: number;
}

export interface CacheTopFiles {
  /** End of the interval the list covers; null: the agent never reported top files. */
  seenAt: string | null;
  intervalSeconds: number | null;
  /** Most accesses first. */
  files: CacheTopFile[];
}

export interface FragmentationRoot {
  root: string;
  scannedAt: string;
  files: number;
  fragmentedFiles: number;
  extents: number;
  excessExtents: number;
  unsupportedFiles: number | null;
  /** null: the agent did not report how long the scan took. */
  scanDurationMs: number | null;
  worstFiles: { path: string; extents: number; sizeBytes: number }[];
}

export interface DatabaseSeries {
  database: string;
  time: number[];
  transactionsPerSecond: (number | null)[];
  bufferHitRatioPercent: (number | null)[];
  overall: { transactionsPerSecond: number | null; bufferHitRatioPercent: number | null; rollbacksPerSecond: number | null };
}

/** A SQL Server instance (Windows performance counters). null: not measured in that point. */
export interface SqlServerSeries {
  instance: string;
  time: number[];
  batchRequestsPerSecond: (number | null)[];
  bufferHitRatioPercent: (number | null)[];
  pageLifeExpectancySeconds: (number | null)[];
  overall: { batchRequestsPerSecond: number | null; bufferHitRatioPercent: number | null; pageLifeExpectancySeconds: number | null };
}

export interface DeepTelemetry {
  /** The preset asked for, or "custom". */
  range: MetricsRange | "custom";
  /** Width of one point: null for raw samples (one per agent interval). */
  bucketSeconds: number | null;
  from: string;
  to: string;
  capabilities: Capabilities;
  latency: LatencySeries[];
  /** Every device and operation together: "latency from N timed I/Os; M more completed without a latency sample". */
  latencyBasis: { timedOperations: number; untimed: UntimedIos };
  splitIo: SplitIoSeries[];
  cacheHit: CacheHitSeries;
  /** The newest list, not range-bound (the gateway keeps only the latest per server). */
  cacheTopFiles: CacheTopFiles;
  fragmentation: FragmentationRoot[];
  databases: DatabaseSeries[];
  sqlServers: SqlServerSeries[];
}
