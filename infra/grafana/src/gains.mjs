// The acceleration features' own statistics (read_cache, write_opt and their aggregates), the
// managed files' extents, miss-ratio curves, and alerts. Each figure says what it is measured
// from; a feature that sent nothing draws nothing (NULL is not measured, never 0).
import { dashboard, serverVariable, stat, table, timeseries } from "./panels.mjs";

const byServer = "server_id = ${server:sqlstring}";

export const acceleration = dashboard({
  uid: "spindle-acceleration",
  title: "Spindle: acceleration gains",
  description: "Measured by the agent's read cache and write optimisation (docs/gains.md). Empty: the feature is off or did not report.",
  variables: [serverVariable],
  panels: [
    timeseries(
      "Read cache: reads served from memory vs storage (a description, not a saving)",
      "Bps",
      `SELECT $__timeGroupAlias(bucket, '1m'), hits_bytes / nullif(interval_seconds, 0) AS "from memory (cache hits)", misses_bytes / nullif(interval_seconds, 0) AS "from storage (misses)"
FROM read_cache_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
    timeseries(
      "Read cache: miss ratio, managed pages vs the control group",
      "percentunit",
      `SELECT $__timeGroupAlias(bucket, '1m'),
  managed_missed_bytes::float8 / nullif(managed_accessed_bytes, 0) AS "managed pages",
  control_missed_bytes::float8 / nullif(control_accessed_bytes, 0) AS "control group (left alone)"
FROM read_cache_holdout_1m
WHERE $__timeFilter(bucket) AND ${byServer} AND holdout_percent_sum > 0
ORDER BY 1`,
      "Pages read from storage per page access, each minute: the gap is what the cache caused there. The console's Gains section turns it into storage reads saved with an interval (docs/gains.md).",
    ),
    timeseries(
      "Read cache: resident, pinned and budget",
      "bytes",
      `SELECT $__timeGroupAlias(bucket, '1m'), resident_bytes_sum::float8 / nullif(resident_bytes_samples, 0) AS "resident",
  pinned_bytes_sum::float8 / nullif(pinned_bytes_samples, 0) AS "pinned", budget_bytes_sum::float8 / nullif(budget_bytes_samples, 0) AS "budget"
FROM read_cache_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
      "Means of the gauges over each minute.",
    ),
    timeseries(
      "Read cache: prefetch, drop-behind and backoffs",
      "short",
      `SELECT $__timeGroupAlias(bucket, '1m'), prefetched_bytes / nullif(interval_seconds, 0) AS "prefetched B/s",
  dropped_behind_bytes / nullif(interval_seconds, 0) AS "dropped behind B/s", backoffs AS "backoffs"
FROM read_cache_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
    table(
      "Read cache over the time range",
      "short",
      `SELECT sum(hits_bytes) AS "bytes from memory", sum(misses_bytes) AS "bytes from storage",
  sum(hits_bytes)::float8 / nullif(sum(hits_bytes) + sum(misses_bytes), 0) AS "share from memory",
  1e6 * sum(memory_read_latency_weighted_seconds) / nullif(sum(memory_read_latency_samples), 0) AS "calibrated page-cache read µs"
FROM read_cache_1m
WHERE $__timeFilter(bucket) AND ${byServer}
HAVING count(hits_bytes) + count(misses_bytes) > 0`,
      "Sums of measured bytes; the calibrated read is the agent's own 4 KiB page-cache read, weighted by its samples.",
    ),
    timeseries(
      "Write optimisation: preallocated, fragments prevented, defragmented",
      "short",
      `SELECT $__timeGroupAlias(bucket, '1m'), preallocated_bytes AS "preallocated bytes", fragments_prevented AS "fragments prevented", files_defragmented AS "files defragmented"
FROM write_opt_1m
WHERE $__timeFilter(bucket) AND ${byServer}
ORDER BY 1`,
    ),
    stat(
      "Extents per GiB grown: managed vs comparison group",
      "short",
      `SELECT 2^30 * sum(managed_extents_added)::float8 / nullif(sum(managed_grown_bytes), 0) AS "managed files",
  2^30 * sum(unmanaged_extents_added)::float8 / nullif(sum(unmanaged_grown_bytes), 0) AS "unmanaged growing files"
FROM write_opt_1m
WHERE $__timeFilter(bucket) AND ${byServer}
HAVING sum(managed_grown_bytes) > 0 OR sum(unmanaged_grown_bytes) > 0`,
      "Extents added per GiB of growth over the range, for files a rule manages and for growing files in the same directories that no rule matches.",
    ),
    table(
      "Managed files (newest list)",
      "short",
      `SELECT path, extents, seen_at AS "seen"
FROM write_opt_files
WHERE ${byServer}
ORDER BY extents DESC, path`,
    ),
    table(
      "Miss-ratio curves (newest per curve and scope)",
      "percentunit",
      `SELECT c.curve, c.scope, c.time AS "window end", p.size_bytes AS "cache size bytes", p.hit_ratio AS "hit ratio"
FROM (SELECT DISTINCT ON (curve, scope) * FROM cache_mrc WHERE ${byServer} AND $__timeFilter(time) ORDER BY curve, scope, time DESC) AS c
CROSS JOIN LATERAL unnest(c.sizes_bytes, c.hit_ratios) AS p(size_bytes, hit_ratio)
ORDER BY c.curve, c.scope, p.size_bytes`,
      "The hit ratio an LRU cache of each size would have had on the host's own accesses, from a sampled stream.",
    ),
  ],
});

export const alerts = dashboard({
  uid: "spindle-alerts",
  title: "Spindle: alerts",
  description: "Alert states and history as the worker records them (docs/alerts.md).",
  variables: [serverVariable],
  panels: [
    table(
      "Firing and pending now",
      "short",
      `SELECT r.name AS rule, r.severity, s.component, s.state, s.state_since AS "since", s.value
FROM alert_states s JOIN alert_rules r ON r.id = s.rule_id
WHERE s.${byServer} AND s.state IN ('firing', 'pending', 'no_data')
ORDER BY s.state, r.severity, r.name`,
    ),
    table(
      "History",
      "short",
      `SELECT at AS "time", rule_name AS rule, severity, component, from_state AS "from", to_state AS "to", value, comparison || ' ' || threshold AS condition,
  silenced_by IS NOT NULL AS silenced
FROM alert_history
WHERE $__timeFilter(at) AND ${byServer}
ORDER BY at DESC`,
    ),
    timeseries(
      "State changes per hour",
      "short",
      `SELECT $__timeGroupAlias(at, '1h'), to_state AS metric, count(*) AS value
FROM alert_history
WHERE $__timeFilter(at) AND ${byServer}
GROUP BY 1, 2
ORDER BY 1`,
    ),
  ],
});
