// The fleet bench's loader for a database migrated in TimescaleDB mode (a PostgreSQL server with
// the extension preloaded: scripts/bench/timescaledb-from-source.sh, then scripts/test-db.sh with
// SPINDLE_TEST_PG_PRELOAD=timescaledb and SPINDLE_TIMESERIES_MODE=timescaledb). There the 1-minute
// and 1-hour aggregates are continuous aggregates, which only TimescaleDB can fill: the loader
// writes raw rows and refreshes them, leaving the state the policies keep at `now`.
//
// Raw rows at three resolutions, each where a range reads it: 10 s for the last RAW_HOURS (the
// 1 h chart, and the real-time part of the hourly aggregate), one per minute back to MINUTE_DAYS
// (the 1-minute buckets of the 24 h chart: the same buckets, one sample each instead of six) and
// one per hour back to HISTORY_DAYS (the hourly buckets of the 7 d chart). Counters are scaled to
// the step, so the sums equal those of 10 s samples. docs/benchmarks.md, "TimescaleDB server built
// from source", says what this does and does not reproduce.
import { performance } from "node:perf_hooks";
import type { TestDatabase } from "@/test-support/test-database";

export interface TimescaleLoad {
  devices: number;
  rawHours: number;
  minuteDays: number;
  historyDays: number;
}

const hour = 3600_000;

/**
 * Stops this database's TimescaleDB jobs (refresh, compression, retention policies), so the
 * loaded state stays the one of `now` however much later the bench runs; the loader does by
 * hand what they would have done at `now`.
 */
export async function pauseTimescaleJobs(db: TestDatabase): Promise<number> {
  const { rows } = await db.pool.query<{ paused: number }>(
    "SELECT count(*)::int AS paused FROM timescaledb_information.jobs AS j, LATERAL alter_job(j.job_id, scheduled => false) WHERE j.job_id >= 1000",
  );
  return rows[0]?.paused ?? 0;
}

export async function loadTimescale(db: TestDatabase, orgId: string, serverIds: string[], config: TimescaleLoad, now: Date): Promise<void> {
  const sql = db.pool;
  // Counters vary with time, server and device so no two series are identical (as the plain loader).
  const wave = (device = "d") => `((extract(epoch FROM t)::bigint / 10 + n * 7 + ${device} * 3) % 97)`;
  const insert = (seconds: number) => `
    WITH s AS (SELECT id::uuid, n FROM unnest($4::text[]) WITH ORDINALITY AS u(id, n)),
         ins AS (INSERT INTO memory
           SELECT t, $1, s.id, 16e9, 8e9 + ${wave("0")} * 1e6, 1e9, 4e9, 1e8, 5e7, 2e9, 2e9
           FROM generate_series($2::timestamptz + interval '${seconds} s', $3::timestamptz, interval '${seconds} s') AS t, s
           ORDER BY t)
    INSERT INTO disk_io
    SELECT t, $1, s.id, 'sd' || chr(97 + d), ${seconds}, (1000 + ${wave()} * 10) * ${seconds / 10}, (500 + ${wave()}) * ${seconds / 10},
           (4096000 + ${wave()} * 4096) * ${seconds / 10}, 2048000 * ${seconds / 10}, 0, 0, (2000 + ${wave()}) * ${seconds / 10},
           2000 * ${seconds / 10}, 5000 * ${seconds / 10}, 7000 * ${seconds / 10}, ${wave()} % 8
    FROM generate_series($2::timestamptz + interval '${seconds} s', $3::timestamptz, interval '${seconds} s') AS t, s,
         generate_series(0, $5 - 1) AS d
    ORDER BY t`;
  const span = async (label: string, from: number, to: number, chunk: number, seconds: number) => {
    const started = performance.now();
    for (let t = from; t < to; t += chunk) {
      await sql.query(insert(seconds), [orgId, new Date(t), new Date(Math.min(t + chunk, to)), serverIds, config.devices]);
    }
    console.error(`loaded ${label} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  };
  const end = now.getTime();
  const minuteFrom = end - config.minuteDays * 24 * hour;
  const rawFrom = end - config.rawHours * hour;
  // Time order across the fleet, as agents write; each statement ends where the next begins.
  await span(`${config.historyDays} d of hourly raw rows`, end - config.historyDays * 24 * hour, minuteFrom, 5 * 24 * hour, 3600);
  await span(`${config.minuteDays} d of one-minute raw rows`, minuteFrom, rawFrom, 6 * hour, 60);
  await span(`${config.rawHours} h of 10 s raw rows`, rawFrom, end, hour, 10);
}

/**
 * What the policies leave at `now` (20261121080100_telemetry): 1-minute buckets materialised to a
 * minute ago, hourly ones to the last whole hour an hour ago (the rest is the real-time part, read
 * from raw rows), raw chunks past three days compressed; then statistics, as autovacuum keeps them.
 */
export async function settleTimescale(db: TestDatabase, config: TimescaleLoad, now: Date): Promise<void> {
  const sql = db.pool;
  let started = performance.now();
  const minuteFrom = new Date(now.getTime() - config.minuteDays * 24 * hour);
  for (const view of ["disk_io_1m", "memory_1m"]) {
    await sql.query(`CALL refresh_continuous_aggregate('${view}', $1::timestamptz, $2::timestamptz - interval '1 minute')`, [
      minuteFrom,
      now,
    ]);
  }
  console.error(`refreshed the 1-minute aggregates in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  started = performance.now();
  for (const view of ["disk_io_1h", "memory_1h"]) {
    await sql.query(`CALL refresh_continuous_aggregate('${view}', NULL, date_trunc('hour', $1::timestamptz - interval '1 hour'))`, [now]);
  }
  console.error(`refreshed the hourly aggregates in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  started = performance.now();
  for (const table of ["disk_io", "memory"]) {
    await sql.query(`SELECT compress_chunk(c, true) FROM show_chunks('${table}', older_than => $1::timestamptz - interval '3 days') AS c`, [
      now,
    ]);
  }
  console.error(`compressed raw chunks older than 3 days in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** Sizes of the tables each range reads: the hypertables and the aggregates' materialisations. */
export async function timescaleSizes(db: TestDatabase): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string; rows: string; size: string }>(`
    SELECT h.hypertable_name AS name,
           (SELECT sum(c.reltuples)::bigint FROM show_chunks(format('%I.%I', h.hypertable_schema, h.hypertable_name)::regclass) AS s(chunk)
              JOIN pg_class c ON c.oid = s.chunk)::text AS rows,
           pg_size_pretty(hypertable_size(format('%I.%I', h.hypertable_schema, h.hypertable_name)::regclass)) AS size
    FROM timescaledb_information.hypertables h WHERE h.hypertable_name IN ('disk_io', 'memory')
    UNION ALL
    SELECT a.view_name,
           (SELECT sum(c.reltuples)::bigint FROM show_chunks(format('%I.%I', a.materialization_hypertable_schema, a.materialization_hypertable_name)::regclass) AS s(chunk)
              JOIN pg_class c ON c.oid = s.chunk)::text,
           pg_size_pretty(hypertable_size(format('%I.%I', a.materialization_hypertable_schema, a.materialization_hypertable_name)::regclass))
    FROM timescaledb_information.continuous_aggregates a WHERE a.view_name IN ('disk_io_1m', 'disk_io_1h', 'memory_1m', 'memory_1h')
    ORDER BY 1`);
  return rows.map((row) => `${row.name}: ${row.rows} rows (chunks, uncompressed part), ${row.size}`);
}
