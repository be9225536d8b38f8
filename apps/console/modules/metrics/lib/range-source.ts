import type { MetricsRange } from "../types/metrics";

export interface RangeSource {
  seconds: number;
  diskTable: "disk_io" | "disk_io_1m" | "disk_io_1h";
  memoryTable: "memory" | "memory_1m" | "memory_1h";
  /** null: raw rows, one per agent interval. */
  bucketSeconds: number | null;
}

/**
 * Which table answers which range, so no chart ever reads more than a few hundred to 1,440 rows
 * per device: 1 h of raw 10 s samples (360), 24 h of 1-minute buckets (1,440), 7 d of 1-hour
 * buckets (168). See docs/metrics.md, "Aggregates".
 */
export const rangeSources: Record<MetricsRange, RangeSource> = {
  "1h": { seconds: 3600, diskTable: "disk_io", memoryTable: "memory", bucketSeconds: null },
  "24h": { seconds: 24 * 3600, diskTable: "disk_io_1m", memoryTable: "memory_1m", bucketSeconds: 60 },
  "7d": { seconds: 7 * 24 * 3600, diskTable: "disk_io_1h", memoryTable: "memory_1h", bucketSeconds: 3600 },
};
