// Which stored resolution answers a range, like modules/metrics/lib/range-source.ts: raw rows up
// to an hour, 1-minute buckets up to a day, 1-hour buckets beyond. Sums of counters are exact at
// every resolution; only the chart's point width changes.
import type { GainsRangeQuery } from "../types/range";

export type Resolution = "raw" | "1m" | "1h";

export interface ResolvedRange {
  range: GainsRangeQuery["range"];
  from: Date;
  to: Date;
  resolution: Resolution;
  /** Width of one chart point; null for raw rows (one per agent interval). */
  bucketSeconds: number | null;
}

const presetSeconds = { "1h": 3600, "24h": 86_400, "7d": 7 * 86_400, "30d": 30 * 86_400 } as const;

export function resolutionFor(spanSeconds: number): { resolution: Resolution; bucketSeconds: number | null } {
  if (spanSeconds <= 3600) return { resolution: "raw", bucketSeconds: null };
  if (spanSeconds <= 86_400) return { resolution: "1m", bucketSeconds: 60 };
  return { resolution: "1h", bucketSeconds: 3600 };
}

export function resolveRange(query: GainsRangeQuery, now = new Date()): ResolvedRange {
  const to = query.range === "custom" ? new Date(query.to!) : now;
  const from = query.range === "custom" ? new Date(query.from!) : new Date(now.getTime() - presetSeconds[query.range] * 1000);
  return { range: query.range, from, to, ...resolutionFor((to.getTime() - from.getTime()) / 1000) };
}

/** The table of a family at a resolution, and its time column. Names come from this closed set only. */
export function tableAt(
  family:
    | "read_cache"
    | "read_cache_holdout"
    | "read_cache_holdout_bucket"
    | "write_opt"
    | "disk_io"
    | "disk_latency"
    | "page_cache"
    | "disk_split_io",
  resolution: Resolution,
) {
  return resolution === "raw" ? { table: family, time: "time" } : { table: `${family}_${resolution}`, time: "bucket" };
}
