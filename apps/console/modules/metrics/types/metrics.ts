import { z } from "zod";
import type { DiskIoRateName } from "@spindle/domain";

export const metricsRangeSchema = z.enum(["1h", "24h", "7d"]);
export type MetricsRange = z.infer<typeof metricsRangeSchema>;

/** One device's series, columnar: `time` in unix seconds, one array per derived rate. */
export type DeviceSeries = { device: string; time: number[] } & Record<DiskIoRateName, (number | null)[]>;

export interface MemorySeries {
  time: number[];
  totalBytes: (number | null)[];
  availableBytes: (number | null)[];
  cachedBytes: (number | null)[];
  dirtyBytes: (number | null)[];
}

export interface ServerMetrics {
  /** The preset asked for, or "custom" (a zoom, the custom range form). */
  range: MetricsRange | "custom";
  /** Tables the series came from: raw samples up to 3 h, aggregates beyond (modules/metrics/lib/chart-window.ts). */
  source: { disk: string; memory: string };
  /** Width of one point: null for raw samples (one per agent interval). */
  bucketSeconds: number | null;
  from: string;
  to: string;
  devices: DeviceSeries[];
  memory: MemorySeries;
}
