// What a user waits for on a fleet of 1,000 servers × 4 devices with 30 days of 10 s history:
// the fleet page's data (queryFleet, what the page polls; filters and groups: fleet-page.bench.ts),
// the Alerts page's open alerts (listOpenAlerts), and the
// server page's chart API (queryServerMetrics) for every range the range picker offers.
//   eval "$(bash scripts/test-db.sh start)"   (repository root)
//   node --import tsx apps/console/bench/fleet-scale.bench.ts   (from apps/console: npm run bench:fleet)
// Environment: SERVERS (1000), DEVICES (4), RUNS (30 per case), HISTORY_DAYS (30: the 1-hour
// aggregates), MINUTE_DAYS (1.1: the 1-minute aggregates, the 24 h window and some), RAW_HOURS
// (2: raw 10 s rows, the 1 h window and some),
// KEEP=1 keeps the loaded database (fleet_bench) for the next run instead of dropping it.
// On a database migrated in TimescaleDB mode (a server with the extension) it loads raw rows and
// lets TimescaleDB materialise the continuous aggregates instead: fleet-load-timescaledb.ts.
//
// What is loaded, and why not all 30 days of everything: see docs/benchmarks.md, "Console at
// fleet scale". In short, each range reads one table through an index range scan bounded by
// its own window, so rows outside that window change the B-tree depth (one level at most), never
// the plan or the rows read; the bench prints the plans so that claim is checked, not assumed.
import { performance } from "node:perf_hooks";
import { createTestDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation } from "@/test-support/fixtures";
import { queryFleet } from "@/modules/fleet/lib/query-fleet";
import { fleetQuerySchema } from "@/modules/fleet/types/fleet-query";
import { listOpenAlerts } from "@/modules/alerts/lib/list-open-alerts";
import { queryServerMetrics } from "@/modules/metrics/lib/query-server-metrics";
import { rangeSources } from "@/modules/metrics/lib/range-source";
import { diskSeriesSql, memorySeriesSql } from "@/modules/metrics/lib/series-sql";
import type { MetricsRange } from "@/modules/metrics/types/metrics";
import { readTimeseriesMode } from "@spindle/db";
import { databaseCpuMs, databaseCpuSpent, percentile } from "./cpu";
import { loadTimescale, pauseTimescaleJobs, settleTimescale, timescaleSizes } from "./fleet-load-timescaledb";

const config = {
  servers: Number(process.env.SERVERS ?? 1000),
  devices: Number(process.env.DEVICES ?? 4),
  runs: Number(process.env.RUNS ?? 30),
  historyDays: Number(process.env.HISTORY_DAYS ?? 30),
  minuteDays: Number(process.env.MINUTE_DAYS ?? 1.1),
  rawHours: Number(process.env.RAW_HOURS ?? 2),
};
const keep = process.env.KEEP === "1";
// Plain mode: a fixed instant. TimescaleDB mode: the minute the fleet was loaded (kept with it),
// because the continuous aggregates' refresh windows and watermarks follow the server's clock.
let now = new Date("2026-11-21T12:00:00Z");
const hour = 3600_000;

async function timeIt(db: TestDatabase, label: string, runs: number, run: (i: number) => Promise<unknown>): Promise<void> {
  const timings: number[] = [];
  const cpuBefore = process.cpuUsage();
  const databaseBefore = await databaseCpuMs(db);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run(i);
    timings.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const databaseMs = databaseCpuSpent(databaseBefore, await databaseCpuMs(db));
  timings.sort((a, b) => a - b);
  console.log(
    `| ${label} | ${runs} | ${percentile(timings, 50).toFixed(1)} | ${percentile(timings, 95).toFixed(1)} | ${timings.at(-1)!.toFixed(1)} | ` +
      `${((cpu.user + cpu.system) / 1000 / runs).toFixed(1)} | ${(databaseMs / runs).toFixed(1)} |`,
  );
}

/** Loads in time order, chunk by chunk, the way agents (raw) and the rollup job (aggregates) write. */
async function load(db: TestDatabase, orgId: string, serverIds: string[]): Promise<void> {
  const sql = db.pool;
  const devices = config.devices;
  const chunk = async (label: string, from: Date, to: Date, step: number, statement: string) => {
    const started = performance.now();
    for (let t = from.getTime(); t < to.getTime(); t += step) {
      await sql.query(statement, [orgId, new Date(t), new Date(Math.min(t + step, to.getTime())), serverIds, devices]);
    }
    console.error(`loaded ${label} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  };
  // Counters vary with time, server and device so no two series are identical; their exact
  // values do not matter to the timings. The aggregates are written directly with the
  // worker's shapes (sums of deltas, samples per bucket) instead of rolling 30 days of raw
  // rows up, which this disk could not hold (docs/benchmarks.md).
  const wave = (t: string, device = "d") => `((extract(epoch FROM ${t})::bigint / 10 + n * 7 + ${device} * 3) % 97)`;
  await sql.query("SET session_replication_role = replica"); // no rollup_pending: aggregates are written below
  await chunk(
    `${config.rawHours} h of raw disk_io and memory`,
    new Date(now.getTime() - config.rawHours * hour),
    now,
    hour,
    `
    WITH s AS (SELECT id::uuid, n FROM unnest($4::text[]) WITH ORDINALITY AS u(id, n)),
         ins AS (INSERT INTO memory
           SELECT t, $1, s.id, 16e9, 8e9 + ${wave("t", "0")} * 1e6, 1e9, 4e9, 1e8, 5e7, 2e9, 2e9
           FROM generate_series($2::timestamptz + interval '10 s', $3::timestamptz, interval '10 s') AS t, s
           ORDER BY t)
    INSERT INTO disk_io
    SELECT t, $1, s.id, 'sd' || chr(97 + d), 10, 1000 + ${wave("t")} * 10, 500 + ${wave("t")}, 4096000 + ${wave("t")} * 4096,
           2048000, 0, 0, 2000 + ${wave("t")}, 2000, 5000, 7000, ${wave("t")} % 8
    FROM generate_series($2::timestamptz + interval '10 s', $3::timestamptz, interval '10 s') AS t, s, generate_series(0, $5 - 1) AS d
    ORDER BY t`,
  );
  const aggregate = (disk: string, memory: string, seconds: number) => `
    WITH s AS (SELECT id::uuid, n FROM unnest($4::text[]) WITH ORDINALITY AS u(id, n)),
         ins AS (INSERT INTO ${memory}
           SELECT b, $1, s.id, 16e9, 8e9 + ${wave("b", "0")} * 1e6, 1e9, 4e9, 1e8, 5e7, 2e9, 2e9, 7e9, ${seconds / 10}
           FROM generate_series($2::timestamptz, $3::timestamptz - interval '${seconds} s', interval '${seconds} s') AS b, s
           ORDER BY b)
    INSERT INTO ${disk}
    SELECT b, $1, s.id, 'sd' || chr(97 + d), ${seconds}, (1000 + ${wave("b")} * 10) * ${seconds / 10}, (500 + ${wave("b")}) * ${seconds / 10},
           (4096000 + ${wave("b")} * 4096) * ${seconds / 10}, 2048000 * ${seconds / 10}, 0, 0, (2000 + ${wave("b")}) * ${seconds / 10},
           2000 * ${seconds / 10}, 5000 * ${seconds / 10}, 7000 * ${seconds / 10}, 8, ${seconds / 10}
    FROM generate_series($2::timestamptz, $3::timestamptz - interval '${seconds} s', interval '${seconds} s') AS b, s, generate_series(0, $5 - 1) AS d
    ORDER BY b`;
  await chunk(
    `${config.minuteDays} d of 1-minute aggregates`,
    new Date(now.getTime() - config.minuteDays * 24 * hour),
    now,
    6 * hour,
    aggregate("disk_io_1m", "memory_1m", 60),
  );
  await chunk(
    `${config.historyDays} d of 1-hour aggregates`,
    new Date(now.getTime() - config.historyDays * 24 * hour),
    now,
    5 * 24 * hour,
    aggregate("disk_io_1h", "memory_1h", 3600),
  );
  await sql.query("RESET session_replication_role");
}

/**
 * Alert states as the worker leaves them on a large fleet: four enabled rules, every server
 * with a state per rule, one server in five firing on one rule (with the history row the
 * firing started at), one in twenty pending.
 */
async function loadAlerts(db: TestDatabase, orgId: string): Promise<void> {
  await db.pool.query(
    `
    WITH rules AS (
      INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity)
      SELECT $1, 'rule ' || r, 'disk.read_iops', 'avg', '>', 50, 300, 'organization', (ARRAY['critical', 'warning', 'info', 'warning'])[r]
      FROM generate_series(1, 4) AS r RETURNING id, name, severity),
    numbered AS (SELECT id, name, severity, row_number() OVER (ORDER BY name) AS r FROM rules),
    states AS (
      INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, condition_since, value, updated_at)
      SELECT $1, numbered.id, s.id, 'sda',
             CASE WHEN numbered.r = 1 AND s.n % 5 = 0 THEN 'firing' WHEN numbered.r = 2 AND s.n % 20 = 0 THEN 'pending' ELSE 'ok' END,
             $2::timestamptz - (s.n % 60) * interval '1 min', NULL, 73.5, $2
      FROM numbered, (SELECT id, row_number() OVER (ORDER BY hostname) AS n FROM servers WHERE org_id = $1) AS s
      RETURNING rule_id, server_id, component, state, state_since)
    INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
    SELECT $1, states.rule_id, numbered.name, numbered.severity, states.server_id, states.component, states.state_since, 'pending', 'firing', 73.5, 50, '>'
    FROM states JOIN numbered ON numbered.id = states.rule_id WHERE states.state = 'firing'`,
    [orgId, now],
  );
}

async function explain(db: TestDatabase, orgId: string, serverId: string, range: MetricsRange): Promise<void> {
  const source = rangeSources[range];
  const params = [orgId, serverId, new Date(now.getTime() - source.seconds * 1000), now];
  for (const sql of [diskSeriesSql(source), memorySeriesSql(source)]) {
    const { rows } = await db.pool.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params);
    console.log(`\n${range}:\n${rows.map((row) => `    ${row["QUERY PLAN"]}`).join("\n")}`);
  }
}

async function main() {
  const db = await createTestDatabase(keep ? { name: "fleet_bench" } : undefined);
  try {
    const timescale = (await readTimeseriesMode(db.pool)) === "timescaledb";
    let orgId: string;
    if (db.reused) {
      const { rows } = await db.pool.query<{ org_id: string; config: typeof config & { now?: string } }>(
        "SELECT org_id, config FROM fleet_bench_loaded",
      );
      if (!rows[0]) throw new Error("fleet_bench was left half-loaded: DROP DATABASE fleet_bench and run again");
      orgId = rows[0].org_id;
      if (rows[0].config.now) now = new Date(rows[0].config.now);
      console.error(`reusing fleet_bench loaded with ${JSON.stringify(rows[0].config)}`);
    } else {
      if (timescale) {
        now = new Date(Math.floor(Date.now() / 60_000) * 60_000);
        console.error(`TimescaleDB mode: ${await pauseTimescaleJobs(db)} jobs paused, the fleet loaded up to ${now.toISOString()}`);
      }
      orgId = (await createOrganisation(db.prisma, "Fleet")).orgId;
      // A second tenant with telemetry of its own, so every plan filters a shared table.
      const other = (await createOrganisation(db.prisma, "Other")).orgId;
      const started = performance.now();
      for (const [org, count] of [
        [orgId, config.servers],
        [other, 10],
      ] as const) {
        const { rows } = await db.pool.query<{ id: string }>(
          `INSERT INTO servers (org_id, machine_id, hostname, os, os_version, kernel, arch, agent_version, created_at, last_seen_at)
           SELECT $1, 'machine-' || i, 'db' || lpad(i::text, 4, '0'), 'linux', 'Debian GNU/Linux 12 (bookworm)', '6.1.0-18-amd64', 'amd64', '0.1.0',
                  $3::timestamptz - interval '40 days', $3::timestamptz - (i % 45) * interval '1 s'
           FROM generate_series(1, $2) AS i RETURNING id::text`,
          [org, count, now],
        );
        if (timescale)
          await loadTimescale(
            db,
            org,
            rows.map((row) => row.id),
            config,
            now,
          );
        else
          await load(
            db,
            org,
            rows.map((row) => row.id),
          );
      }
      if (timescale) await settleTimescale(db, config, now);
      await loadAlerts(db, orgId);
      await db.pool.query("VACUUM ANALYZE");
      await db.pool.query("CREATE TABLE fleet_bench_loaded AS SELECT $1::text AS org_id, $2::jsonb AS config", [
        orgId,
        JSON.stringify(timescale ? { ...config, now: now.toISOString() } : config),
      ]);
      console.error(`loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    const { rows: sizes } = await db.pool.query<{ relname: string; rows: string; size: string }>(
      `SELECT c.relname, c.reltuples::bigint::text AS rows, pg_size_pretty(pg_total_relation_size(c.oid)) AS size
       FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relname IN ('disk_io', 'disk_io_1m', 'disk_io_1h', 'memory', 'memory_1m', 'memory_1h', 'servers', 'alert_states')
       ORDER BY c.relname`,
    );
    console.log(
      timescale ? (await timescaleSizes(db)).join("\n") : sizes.map((row) => `${row.relname}: ${row.rows} rows, ${row.size}`).join("\n"),
    );
    const { rows: servers } = await db.pool.query<{ id: string }>("SELECT id::text FROM servers WHERE org_id = $1 ORDER BY hostname", [
      orgId,
    ]);
    const serverIds = servers.map((row) => row.id);
    const runs = config.runs;

    console.log("\n| what | runs | p50 ms | p95 ms | max ms | bench CPU ms/run | database CPU ms/run |\n|---|---|---|---|---|---|---|");
    // Cold-ish first: each run opens a server nothing has read since the load (or since the
    // database restarted), the way a user goes from the fleet table to a server.
    let next = 0;
    for (const range of ["1h", "24h", "7d"] as MetricsRange[]) {
      await timeIt(db, `server metrics ${range}, cold-ish (a different server each run)`, runs, () =>
        queryServerMetrics(db, orgId, serverIds[(next++ * 7) % serverIds.length]!, range, now),
      );
    }
    await timeIt(db, "fleet: queryFleet, first page", runs, () => queryFleet(db, orgId, fleetQuerySchema.parse({}), now));
    await timeIt(db, "fleet: listOpenAlerts", runs, () => listOpenAlerts(db, orgId, { now }));
    for (const range of ["1h", "24h", "7d"] as MetricsRange[]) {
      await timeIt(db, `server metrics ${range}, warm (one server)`, runs, () => queryServerMetrics(db, orgId, serverIds[0]!, range, now));
    }
    await timeIt(db, "server page: listOpenAlerts for one server", runs, (i) =>
      listOpenAlerts(db, orgId, { serverId: serverIds[i % serverIds.length]!, now }),
    );
    if (process.env.EXPLAIN !== "0")
      for (const range of ["1h", "24h", "7d"] as MetricsRange[]) await explain(db, orgId, serverIds[1]!, range);
  } finally {
    if (keep) {
      await Promise.all([db.prisma.$disconnect(), db.pool.end()]);
    } else {
      await db.drop();
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
