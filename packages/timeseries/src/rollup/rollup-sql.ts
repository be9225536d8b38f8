// The SQL that maintains the plain-mode rollup tables (<family>_1m and <family>_1h of every
// family with aggregates, from @spindle/domain's family descriptors, which are generated from
// packages/domain/metrics/catalogue.json). Each statement takes the claimed pending ranges as four
// parallel arrays (org_id, server_id, first_time, last_time), widens them to whole minutes, merges
// overlaps per server, recomputes those minutes from raw rows and upserts them; hours take what
// those minutes changed by (a family with means, memory's, recomputes its touched hours from
// their minutes). Bucketing matches TimescaleDB's time_bucket (same origin), so both storage
// modes put a sample in the same bucket.

import { rolledUpFamilies, type RolledUpFamily } from "@spindle/domain";

const origin = "TIMESTAMPTZ '2000-01-03 00:00:00+00'";

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

/** The spec's buckets within the claimed spans, recomputed from every source row in them. */
function bucketsInSpans(spec: RollupSpec): string {
  const groupKeys = spec.keys.map((key) => `s.${key}`);
  return `
    SELECT date_bin(INTERVAL '${spec.width}', s.${spec.sourceTime}, ${origin}) AS bucket, s.org_id, s.server_id${
      groupKeys.length ? `, ${groupKeys.join(", ")}` : ""
    },
           ${spec.aggregates.map(([column, expression]) => `${expression} AS ${column}`).join(",\n           ")}
    FROM spans p
    -- One index range scan per span. As a plain join the planner merged the spans with the
    -- source's whole (org_id, server_id, time) index: every row of every claimed server, read on
    -- every claim, so a claim's cost grew with the table (OFFSET 0 keeps the subquery lateral).
    CROSS JOIN LATERAL (
      SELECT * FROM ${spec.source} r
      WHERE r.org_id = p.org_id AND r.server_id = p.server_id
        AND r.${spec.sourceTime} >= lower(p.span) AND r.${spec.sourceTime} < upper(p.span)
      OFFSET 0
    ) s
    GROUP BY ${["1", "s.org_id", "s.server_id", ...groupKeys].join(", ")}`;
}

const rollupColumns = (spec: RollupSpec) => ["bucket", "org_id", "server_id", ...spec.keys, ...spec.aggregates.map(([column]) => column)];
const conflictKey = (keys: string[]) => `(org_id, server_id, bucket${keys.map((key) => `, ${key}`).join("")})`;

function upsert(spec: RollupSpec): string {
  return `
    WITH ${claimedSpans(spec.width)}
    INSERT INTO ${spec.target} (${rollupColumns(spec).join(", ")})
    ${bucketsInSpans(spec)}
    ON CONFLICT ${conflictKey(spec.keys)}
    DO UPDATE SET ${spec.aggregates.map(([column]) => `${column} = EXCLUDED.${column}`).join(", ")}`;
}

/** How an hour merges its minutes' values of one column. */
type Merge = "sum" | "max";

/** A family whose every minute column an hour merges as a sum or a maximum of its minutes. */
interface MergeableFamily {
  source: string;
  keys: string[];
  /** Minute columns: the expression over raw rows `s`, and how the hour merges them. */
  columns: { column: string; fromRaw: string; merge: Merge }[];
}

/**
 * One statement for a mergeable family: recomputes the touched minutes from raw rows (as
 * `upsert`) and adds to each touched hour only what those minutes changed by (new minute minus
 * the minute as it was), instead of re-reading every minute of the hour. An hour's sum is the
 * sum of its minutes, and raw rows are only ever added, so a minute's sums and maximum only
 * grow: the hour stays equal to the sum (maximum) of its minutes with work proportional to the
 * minutes touched, not to how far the hour has filled (60 minute rows per key at its end, read
 * on every claim: docs/benchmarks.md, "Rollups at the maximum ingest rate"). The lookup of each
 * minute as it was reads it before `minutes` rewrites it: every part of one statement reads the
 * same snapshot. NULL stays "not measured": a minute's change is NULL when neither version
 * measured the column, and an hour that measured nothing takes the change as it is.
 */
function minutesAndHourChange(family: MergeableFamily): string {
  const minute: RollupSpec = {
    target: `${family.source}_1m`,
    source: family.source,
    sourceTime: "time",
    width: "1 minute",
    keys: family.keys,
    aggregates: family.columns.map(({ column, fromRaw }) => [column, fromRaw]),
  };
  const sameMinute = ["org_id", "server_id", "bucket", ...family.keys].map((key) => `o.${key} = f.${key}`).join(" AND ");
  const fKeys = family.keys.map((key) => `, f.${key}`).join("");
  const change = ({ column, merge }: MergeableFamily["columns"][number]) =>
    merge === "max"
      ? `max(f.${column})`
      : `sum(coalesce(f.${column}, 0) - coalesce(o.${column}, 0)) FILTER (WHERE f.${column} IS NOT NULL OR o.${column} IS NOT NULL)`;
  const mergeInto = ({ column, merge }: MergeableFamily["columns"][number]) =>
    merge === "max"
      ? `${column} = greatest(h.${column}, EXCLUDED.${column})`
      : `${column} = CASE WHEN h.${column} IS NULL THEN EXCLUDED.${column} ELSE h.${column} + coalesce(EXCLUDED.${column}, 0) END`;
  return `
    WITH ${claimedSpans("1 minute")},
    fresh AS (${bucketsInSpans(minute)}
    ),
    minutes AS (
      INSERT INTO ${minute.target} (${rollupColumns(minute).join(", ")})
      SELECT ${rollupColumns(minute).join(", ")} FROM fresh
      ON CONFLICT ${conflictKey(family.keys)}
      DO UPDATE SET ${family.columns.map(({ column }) => `${column} = EXCLUDED.${column}`).join(", ")}
    )
    INSERT INTO ${family.source}_1h AS h (${rollupColumns(minute).join(", ")})
    SELECT date_bin(INTERVAL '1 hour', f.bucket, ${origin}), f.org_id, f.server_id${fKeys},
           ${family.columns.map((c) => change(c)).join(",\n           ")}
    FROM fresh f
    -- The minute as it was: a primary-key probe per touched minute, whatever the planner thinks
    -- of fresh's size (as a join it became a hash join over the whole minute table, or a nested
    -- loop rescanning every minute for every minute). The statement's snapshot predates
    -- \`minutes\`, so this reads the values that upsert replaces.
    LEFT JOIN LATERAL (SELECT * FROM ${minute.target} o WHERE ${sameMinute} LIMIT 1) o ON true
    GROUP BY 1, f.org_id, f.server_id${fKeys}
    ON CONFLICT ${conflictKey(family.keys)}
    DO UPDATE SET ${family.columns.map((c) => mergeInto(c)).join(", ")}`;
}

/**
 * The hour of a mergeable family recomputed from all its minutes: what `minutesAndHourChange`
 * must keep each hour equal to (the tests compare the two).
 */
export function hourFromMinutesSql(family: MergeableFamily): string {
  const keys = family.keys.map((key) => `, ${key}`).join("");
  return `
    SELECT date_bin(INTERVAL '1 hour', bucket, ${origin}) AS bucket, org_id, server_id${keys},
           ${family.columns.map(({ column, merge }) => `${merge}(${column}) AS ${column}`).join(", ")}
    FROM ${family.source}_1m GROUP BY 1, org_id, server_id${keys}`;
}

/** The minutes of a mergeable family recomputed from all its raw rows. */
export function minutesFromRawSql(family: MergeableFamily): string {
  const keys = family.keys.map((key) => `, s.${key}`).join("");
  return `
    SELECT date_bin(INTERVAL '1 minute', s.time, ${origin}) AS bucket, s.org_id, s.server_id${keys},
           ${family.columns.map(({ column, fromRaw }) => `${fromRaw} AS ${column}`).join(", ")}
    FROM ${family.source} s GROUP BY 1, s.org_id, s.server_id${keys}`;
}

/** A family whose hours merge their minutes by sum or maximum, or null (it has means). */
function asMergeable(family: RolledUpFamily): MergeableFamily | null {
  const columns: MergeableFamily["columns"] = [];
  for (const a of family.aggregates) {
    if (a.merge !== "sum" && a.merge !== "max") return null;
    columns.push({ column: a.name, fromRaw: a.fromRaw, merge: a.merge });
  }
  return { source: family.table, keys: [...family.keys], columns };
}

/**
 * A family with means (memory's gauges): an hour's mean is the sample-weighted mean of its
 * minutes' means, which a change to one minute cannot be added to, so each touched hour is
 * recomputed from its minutes (one row per server and minute: the smallest of the families).
 */
function recomputedStatements(family: RolledUpFamily): string[] {
  const keys = [...family.keys];
  return [
    upsert({
      target: `${family.table}_1m`,
      source: family.table,
      sourceTime: "time",
      width: "1 minute",
      keys,
      aggregates: family.aggregates.map((a): [string, string] => [a.name, a.fromRaw]),
    }),
    upsert({
      target: `${family.table}_1h`,
      source: `${family.table}_1m`,
      sourceTime: "bucket",
      width: "1 hour",
      keys,
      aggregates: family.aggregates.map((a): [string, string] => [a.name, a.fromMinutes]),
    }),
  ];
}

// A metric the agent did not send is NULL (not measured): sum, avg, min and max skip it, and a
// bucket where nothing measured it stays NULL, as in TimescaleDB's continuous aggregates.

/** Every family whose hours merge their minutes by sum or maximum (all but those with means). */
export const mergeableFamilies: MergeableFamily[] = rolledUpFamilies.flatMap((family) => asMergeable(family) ?? []);

/** Every rollup source (rollup_pending.source) and the statements that bring its minutes and hours up to date. */
export const rollupStatementsBySource: Record<string, readonly string[]> = Object.fromEntries(
  rolledUpFamilies.map((family) => {
    const mergeable = asMergeable(family);
    return [family.table, mergeable ? [minutesAndHourChange(mergeable)] : recomputedStatements(family)];
  }),
);

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
