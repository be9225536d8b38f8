import type { MetricsRange } from "@/modules/metrics/types/metrics";

/** One key's points (a device, an instance, or the server itself for a family without keys). */
export interface FamilyKeySeries {
  /** The family's key columns and their values; {} for a family without keys. */
  key: Record<string, string>;
  /** Unix seconds: the end of each raw interval, or the start of each bucket. */
  time: number[];
  /** Each aggregate column of the family per point; null: not measured at that point. */
  values: Record<string, (number | null)[]>;
}

/**
 * A family's points over a range, read from whichever table answers it (raw rows for 1 h, the
 * 1-minute aggregate for 24 h, the hourly one for 7 d) in the aggregate's columns, so every range
 * reads the same way: a sum is a sum of deltas, `interval_seconds` the seconds they cover.
 */
export interface FamilySeries {
  table: string;
  /** The preset asked for, or "custom" (a zoom or a custom window). */
  range: MetricsRange | "custom";
  from: string;
  to: string;
  /** null: raw rows, one per agent interval. */
  bucketSeconds: number | null;
  columns: string[];
  series: FamilyKeySeries[];
}
