// The acceleration-gains families (packages/db/migrations/20261123100000_acceleration_gains,
// 20261128100000_read_cache_holdout and 20261128210000_read_cache_holdout_bucket, docs/metrics.md
// "Acceleration features"), declared once: each aggregate column with the
// expression that builds it from raw rows. Every column is a sum or a count, so an hour is the
// sum of its minutes and any coarser window merges exactly; the rollup SQL and the tests'
// expected values both derive from this list.

export interface GainsColumn {
  /** The aggregate column (read_cache_1m, …). */
  column: string;
  /** Its value over raw rows `s` of one bucket. */
  fromRaw: string;
}

export interface GainsFamily {
  source: "read_cache" | "read_cache_holdout" | "read_cache_holdout_bucket" | "write_opt";
  /** Key columns beside (org_id, server_id, bucket); none for one row per server and interval. */
  keys?: string[];
  columns: GainsColumn[];
}

const sum = (column: string): GainsColumn => ({ column, fromRaw: `sum(s.${column})::bigint` });

/** A gauge's mean over any window is `<g>_sum / <g>_samples`; rows that did not carry it do not count. */
const gauge = (g: string): GainsColumn[] => [
  { column: `${g}_sum`, fromRaw: `sum(s.${g})::bigint` },
  { column: `${g}_samples`, fromRaw: `count(s.${g})` },
];

export const gainsFamilies: GainsFamily[] = [
  {
    source: "read_cache",
    columns: [
      ...["budget_bytes", "resident_bytes", "pinned_bytes", "managed_files"].flatMap(gauge),
      ...["hits_bytes", "misses_bytes", "prefetched_bytes", "dropped_behind_bytes", "backoffs"].map(sum),
      // The memory-hit latency's mean over any window: weighted seconds / samples.
      {
        column: "memory_read_latency_weighted_seconds",
        fromRaw: "sum(s.memory_read_latency_seconds * s.memory_read_latency_samples)",
      },
      sum("memory_read_latency_samples"),
    ],
  },
  {
    // The read cache's control group: the holdout share's sum and count, both groups' counters.
    source: "read_cache_holdout",
    columns: [
      ...gauge("holdout_percent"),
      ...["managed_accessed_bytes", "managed_missed_bytes", "control_accessed_bytes", "control_missed_bytes", "own_read_bytes", "own_page_hit_bytes"].map(sum),
    ],
  },
  {
    // The same counters per hash bucket of page groups: the caused estimate's interval.
    source: "read_cache_holdout_bucket",
    keys: ["hash_bucket"],
    columns: ["managed_accessed_bytes", "managed_missed_bytes", "control_accessed_bytes", "control_missed_bytes"].map(sum),
  },
  {
    source: "write_opt",
    columns: ["preallocated_bytes", "fragments_prevented", "files_defragmented", "managed_grown_bytes", "managed_extents_added",
      "unmanaged_grown_bytes", "unmanaged_extents_added"].map(sum),
  },
];
