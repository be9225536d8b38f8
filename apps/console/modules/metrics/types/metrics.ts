import { z } from "zod";
import type { DiskIoRateName } from "@spindle/domain";

export const metricsRangeSchema = z.enum(["1h", "24h", "7d"]);
export type MetricsRange = z.infer<typeof metricsRangeSchema>;

/**
 * The chart query of the server page: a range ending now, or ending at `to` (ISO 8601 with an
 * offset; a time in the future means now) to look at the window around an alert.
 */
export const chartWindowQuerySchema = z
  .object({
    range: metricsRangeSchema.default("1h"),
    to: z.iso.datetime({ offset: true, message: "to is an ISO 8601 time with an offset, e.g. 2026-11-23T10:00:00Z" }).optional(),
  });

/** The end of the window a chart query asks for: `to`, never later than now. */
export function windowEnd(to: string | undefined, now = new Date()): Date {
  return to === undefined ? now : new Date(Math.min(Date.parse(to), now.getTime()));
}

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
  range: MetricsRange;
  /** Tables the series came from: raw samples for 1 h, aggregates beyond. */
  source: { disk: string; memory: string };
  /** Width of one point: null for raw samples (one per agent interval). */
  bucketSeconds: number | null;
  from: string;
  to: string;
  devices: DeviceSeries[];
  memory: MemorySeries;
}
