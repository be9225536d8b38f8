// The SQL that maintains the plain-mode rollup tables (disk_io_1m/1h, memory_1m/1h, the deep and
// gains families). Each statement takes the claimed pending ranges as four parallel arrays (org_id, server_id,
// first_time, last_time), widens them to whole buckets, merges overlaps per server, recomputes
// those buckets and upserts them. Bucketing matches TimescaleDB's time_bucket (same origin),
// so both storage modes put a sample in the same bucket.

import { fromMinutes, gainsFamilies } from "./gains-families.js";

const origin = "TIMESTAMPTZ '2000-01-03 00:00:00+00'";

const diskCounters = [
  "read_ops", "write_ops", "read_bytes", "write_bytes", "read_merged", "write_merged",
  "read_time_ms", "write_time_ms", "io_time_ms", "weighted_io_time_ms",
];
const memoryGauges = [
  "total_bytes", "available_bytes", "free_bytes", "cached_bytes", "buffers_bytes",
  "dirty_bytes", "swap_total_bytes", "swap_free_bytes",
];

interface RollupSpec {
  target: string;
  source: string;
  /** The source's time column: raw rows have `time`, minute rollups have `bucket`. */
  sourceTime: string;
  width: "1 minute" | "1 hour";
  keys: string[];
  aggregates: [column: string, expression: string][];
}

function claimedSpans(width: string): string {
  return `
    claimed AS (
      SELECT * FROM unnest($1::text[], $2::uuid[], $3::timestamptz[], $4::timestamptz[])
        AS c(org_id, server_id, first_time, last_time)
    ),
    spans AS (
      SELECT org_id, server_id, unnest(range_agg(tstzrange(
               date_bin(INTERVAL '${width}', first_time, ${origin}),
               date_bin(INTERVAL '${width}', last_time, ${origin}) + INTERVAL '${width}'))) AS span
      FROM claimed GROUP BY org_id, server_id
    )`;
}

function upsert(spec: RollupSpec): string {
  const keyColumns = ["bucket", "org_id", "server_id", ...spec.keys];
  const columns = [...keyColumns, ...spec.aggregates.map(([column]) => column)];
  const groupKeys = spec.keys.map((key) => `s.${key}`);
  return `
    WITH ${claimedSpans(spec.width)}
    INSERT INTO ${spec.target} (${columns.join(", ")})
    SELECT date_bin(INTERVAL '${spec.width}', s.${spec.sourceTime}, ${origin}) AS bucket, s.org_id, s.server_id${
      groupKeys.length ? `, ${groupKeys.join(", ")}` : ""
    },
           ${spec.aggregates.map(([column, expression]) => `${expression} AS ${column}`).join(",\n           ")}
    FROM spans p
    JOIN ${spec.source} s ON s.org_id = p.org_id AND s.server_id = p.server_id
                         AND s.${spec.sourceTime} >= lower(p.span) AND s.${spec.sourceTime} < upper(p.span)
    GROUP BY ${["1", "s.org_id", "s.server_id", ...groupKeys].join(", ")}
    ON CONFLICT (org_id, server_id, bucket${spec.keys.map((key) => `, ${key}`).join("")})
    DO UPDATE SET ${spec.aggregates.map(([column]) => `${column} = EXCLUDED.${column}`).join(", ")}`;
}

// Hours are summed from minutes, not raw rows: a sum of sums (and a max of maxes) is exact, and
// it reads 60 rows per device-hour instead of 360. Averages are weighted by sample count.
// A metric the agent did not send is NULL (not measured): sum, avg, min and max skip it, and a
// bucket where nothing measured it stays NULL, as in TimescaleDB's continuous aggregates.
export const rollupStatements = {
  disk_io: [
    upsert({
      target: "disk_io_1m", source: "disk_io", sourceTime: "time", width: "1 minute", keys: ["device"],
      aggregates: [
        ["interval_seconds", "sum(s.interval_seconds)"],
        ...diskCounters.map((c): [string, string] => [c, `sum(s.${c})::bigint`]),
        ["in_progress_max", "max(s.in_progress)"],
        ["samples", "count(*)"],
      ],
    }),
    upsert({
      target: "disk_io_1h", source: "disk_io_1m", sourceTime: "bucket", width: "1 hour", keys: ["device"],
      aggregates: [
        ["interval_seconds", "sum(s.interval_seconds)"],
        ...diskCounters.map((c): [string, string] => [c, `sum(s.${c})::bigint`]),
        ["in_progress_max", "max(s.in_progress_max)"],
        ["samples", "sum(s.samples)::bigint"],
      ],
    }),
  ],
  memory: [
    upsert({
      target: "memory_1m", source: "memory", sourceTime: "time", width: "1 minute", keys: [],
      aggregates: [
        ...memoryGauges.map((g): [string, string] => [g, `avg(s.${g})::bigint`]),
        ["available_min_bytes", "min(s.available_bytes)"],
        ["samples", "count(*)"],
      ],
    }),
    upsert({
      target: "memory_1h", source: "memory_1m", sourceTime: "bucket", width: "1 hour", keys: [],
      aggregates: [
        // Minutes where a gauge was not measured (NULL) carry no weight for it, so an hour with
        // no measured value stays NULL rather than becoming a diluted average or 0.
        ...memoryGauges.map((g): [string, string] => [
          g, `(sum(s.${g}::numeric * s.samples) / sum(s.samples) FILTER (WHERE s.${g} IS NOT NULL))::bigint`,
        ]),
        ["available_min_bytes", "min(s.available_min_bytes)"],
        ["samples", "sum(s.samples)::bigint"],
      ],
    }),
  ],
} as const;

/**
 * The deep-telemetry families (20261121140000_deep_telemetry): every column is a delta, so the
 * minute is the sum of raw rows and the hour the sum of minutes. Summed latency bucket counts
 * are what makes percentiles over any range exact to the bucket. A column NULL in every row of
 * a bucket (pressure the kernel did not report) stays NULL, as sum() leaves it.
 */
const deepFamilies: { source: string; keys: string[]; sums: string[] }[] = [
  {
    source: "disk_latency",
    keys: ["device", "operation"],
    sums: ["operations", "sum_seconds", ...Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`)],
  },
  { source: "disk_split_io", keys: ["device"], sums: ["split_ops"] },
  { source: "page_cache", keys: [], sums: ["accesses", "misses"] },
  { source: "pg_database_stats", keys: ["database"], sums: ["commits", "rollbacks", "blocks_hit", "blocks_read", "block_read_time_us"] },
  { source: "pressure", keys: [], sums: ["memory_some_us", "memory_full_us", "io_some_us", "io_full_us"] },
  // Gauges (20261124100000_alert_ack_filesystem): summed like the deltas, with `samples` to
  // divide by, so a mean over any window is still exact.
  { source: "filesystem", keys: ["mountpoint", "device"], sums: ["size_bytes", "free_bytes", "available_bytes"] },
  { source: "agent_spool", keys: [], sums: ["spool_bytes", "pending_batches"] },
];

/** sum() of a bigint is numeric: cast back so rollups hold the aggregates' types. */
const sumOf = (column: string) => (column === "sum_seconds" ? `sum(s.${column})` : `sum(s.${column})::bigint`);

function deepRollup(family: (typeof deepFamilies)[number]): string[] {
  const sums = family.sums.map((c): [string, string] => [c, sumOf(c)]);
  return [
    upsert({
      target: `${family.source}_1m`, source: family.source, sourceTime: "time", width: "1 minute", keys: family.keys,
      aggregates: [["interval_seconds", "sum(s.interval_seconds)"], ...sums, ["samples", "count(*)"]],
    }),
    upsert({
      target: `${family.source}_1h`, source: `${family.source}_1m`, sourceTime: "bucket", width: "1 hour", keys: family.keys,
      aggregates: [["interval_seconds", "sum(s.interval_seconds)"], ...sums, ["samples", "sum(s.samples)::bigint"]],
    }),
  ];
}

export const deepRollupStatements: Record<string, string[]> = Object.fromEntries(
  deepFamilies.map((family) => [family.source, deepRollup(family)]),
);

/** The acceleration-gains families (gains-families.ts): minutes from raw rows, hours from minutes. */
export const gainsRollupStatements: Record<string, string[]> = Object.fromEntries(
  gainsFamilies.map((family) => [
    family.source,
    [
      upsert({
        target: `${family.source}_1m`, source: family.source, sourceTime: "time", width: "1 minute", keys: [],
        aggregates: [
          ["interval_seconds", "sum(s.interval_seconds)"],
          ...family.columns.map((c): [string, string] => [c.column, c.fromRaw]),
          ["samples", "count(*)"],
        ],
      }),
      upsert({
        target: `${family.source}_1h`, source: `${family.source}_1m`, sourceTime: "bucket", width: "1 hour", keys: [],
        aggregates: [
          ["interval_seconds", "sum(s.interval_seconds)"],
          ...family.columns.map((c): [string, string] => [c.column, fromMinutes(c)]),
          ["samples", "sum(s.samples)::bigint"],
        ],
      }),
    ],
  ]),
);

/**
 * SQL Server statistics (20261125160000_sqlserver_stats): a batch-request delta that is NULL on
 * an instance's first interval, a hit ratio NULL while it has read no page, and the page life
 * expectancy. Minutes keep the sums and the counts that make the rate and the means exact over
 * any window without counting unmeasured intervals as 0: the seconds that measured batches, and
 * the samples that carried a hit ratio.
 */
export const sqlServerRollupStatements: Record<string, string[]> = {
  sqlserver_stats: [
    upsert({
      target: "sqlserver_stats_1m", source: "sqlserver_stats", sourceTime: "time", width: "1 minute", keys: ["instance"],
      aggregates: [
        ["interval_seconds", "sum(s.interval_seconds)"],
        ["batch_requests", "sum(s.batch_requests)::bigint"],
        ["batch_seconds", "sum(s.interval_seconds) FILTER (WHERE s.batch_requests IS NOT NULL)"],
        ["hit_ratio_sum", "sum(s.buffer_cache_hit_ratio)"],
        ["hit_ratio_samples", "count(s.buffer_cache_hit_ratio)"],
        ["page_life_expectancy_s", "sum(s.page_life_expectancy_s)::bigint"],
        ["samples", "count(*)"],
      ],
    }),
    upsert({
      target: "sqlserver_stats_1h", source: "sqlserver_stats_1m", sourceTime: "bucket", width: "1 hour", keys: ["instance"],
      aggregates: [
        ["interval_seconds", "sum(s.interval_seconds)"],
        ["batch_requests", "sum(s.batch_requests)::bigint"],
        ["batch_seconds", "sum(s.batch_seconds)"],
        ["hit_ratio_sum", "sum(s.hit_ratio_sum)"],
        ["hit_ratio_samples", "sum(s.hit_ratio_samples)::bigint"],
        ["page_life_expectancy_s", "sum(s.page_life_expectancy_s)::bigint"],
        ["samples", "sum(s.samples)::bigint"],
      ],
    }),
  ],
};

/** Every rollup source (rollup_pending.source) and the statements that recompute its buckets. */
export const rollupStatementsBySource: Record<string, readonly string[]> = {
  ...rollupStatements, ...deepRollupStatements, ...gainsRollupStatements, ...sqlServerRollupStatements,
};

/** Takes up to $1 pending ranges of source $2 that no other worker holds, and removes them (on commit). */
export const claimPendingSql = `
  DELETE FROM rollup_pending
  WHERE id IN (SELECT id FROM rollup_pending WHERE source = $2 ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING source, org_id, server_id, first_time, last_time`;

/**
 * Two workers may claim different pending rows for the same server and source; recomputing a
 * bucket from a snapshot that misses the other's rows would overwrite a newer result with an
 * older one. Holding a per-(server, source) lock while recomputing makes the later worker read
 * after the earlier one committed; sources have disjoint rollup tables, so they need not wait for
 * each other. Locks are taken in server order so two workers never deadlock.
 */
export const lockServersSql = `
  SELECT pg_advisory_xact_lock(${0x5350}, hashtext($2 || '/' || server_id))
  FROM unnest($1::text[]) AS server_id ORDER BY server_id`;
