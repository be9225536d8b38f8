// The fleet page on a large fleet (issue 27): GET /api/servers's operation (queryFleet) with
// filters and a grouping by tag, answered on the server side, on plain PostgreSQL 15.
//   eval "$(bash scripts/test-db.sh start)"   (repository root)
//   node --import tsx apps/console/bench/fleet-page.bench.ts   (from apps/console: npm run bench:fleet-page)
// Environment: SERVERS (1000), TAGS (20), RUNS (50 per case), KEEP=1 keeps the loaded
// database (fleet_page_bench_<servers>) for the next run.
//
// What is loaded, as a fleet of that size holds it: every server with an agent, 0–3 tags of TAGS,
// one of four OS / kernel / agent versions, capabilities reported (one in ten missing the
// miss-ratio curves), an effective policy and its status (applied, pending, failed), four alert
// rules with one server in ten firing (one in fifty critical), a second organisation of 100
// servers in the same tables, and each server's read latency summary of the last hour (what the
// p99 figures read; the worker's job that writes them is apps/worker/bench/read-latency-summary.ts).
import { performance } from "node:perf_hooks";
import { createTestDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation } from "@/test-support/fixtures";
import { queryFleet } from "@/modules/fleet/lib/query-fleet";
import { fleetQuerySchema, type FleetQueryInput } from "@/modules/fleet/types/fleet-query";
import { databaseCpuMs, databaseCpuSpent, percentile } from "./cpu";

const config = {
  servers: Number(process.env.SERVERS ?? 1000),
  tags: Number(process.env.TAGS ?? 20),
  runs: Number(process.env.RUNS ?? 50),
};
const keep = process.env.KEEP === "1";
const now = new Date("2026-11-28T12:00:00Z");

async function loadFleet(db: TestDatabase, orgId: string, servers: number, tags: number): Promise<void> {
  const sql = db.pool;
  await sql.query(
    `
    INSERT INTO servers (org_id, machine_id, hostname, os, os_version, kernel, arch, agent_version, tags, created_at, last_seen_at)
    SELECT $1, 'm-' || i, (ARRAY['web', 'db', 'cache', 'batch'])[1 + i % 4] || '-' || lpad(i::text, 5, '0'), 'linux',
      (ARRAY['Debian GNU/Linux 12 (bookworm)', 'Ubuntu 22.04.3 LTS', 'Rocky Linux 9.3 (Blue Onyx)', 'Debian GNU/Linux 11 (bullseye)'])[1 + i % 4],
      (ARRAY['6.1.0-18-amd64', '5.15.0-91-generic', '5.14.0-362.8.1.el9_3.x86_64', '5.10.0-27-amd64'])[1 + (i / 7) % 4],
      'amd64', (ARRAY['0.1.0', '0.2.0', '0.2.1', '0.3.0'])[1 + (i / 3) % 4],
      ARRAY(SELECT 'tag-' || lpad(((i * 7 + k * 13) % $3)::text, 2, '0') FROM generate_series(1, i % 4) AS k),
      $4::timestamptz - interval '40 days', $4::timestamptz - (i % 50) * interval '1 s'
    FROM generate_series(1, $2) AS i`,
    [orgId, servers, tags, now],
  );
  await sql.query(
    `
    INSERT INTO agents (org_id, server_id, credential_hash, telemetry_capabilities, telemetry_capabilities_at)
    SELECT org_id, id, sha256(id::text::bytea),
      CASE WHEN row_number() OVER (ORDER BY hostname) % 10 = 0
        THEN ARRAY['ebpf.block_latency', 'ebpf.block_split', 'ebpf.page_cache', 'fiemap.fragmentation', 'psi.pressure']
        ELSE ARRAY['ebpf.block_latency', 'ebpf.block_split', 'ebpf.page_cache', 'ebpf.mrc', 'fiemap.fragmentation', 'psi.pressure'] END, $2
    FROM servers WHERE org_id = $1`,
    [orgId, now],
  );
  await sql.query(
    `
    WITH s AS (SELECT id, row_number() OVER (ORDER BY hostname) AS n FROM servers WHERE org_id = $1),
    ep AS (INSERT INTO server_effective_policies (org_id, server_id, document, hash)
      SELECT $1, id, '{"schemaVersion": 1}', repeat('e', 64) FROM s RETURNING server_id)
    INSERT INTO server_policy_status (org_id, server_id, desired_version_hash, reported_hash, applied_hash, status, message, reported_at, applied_at)
    SELECT $1, id, repeat('e', 64), repeat('e', 64), CASE WHEN n % 20 = 0 THEN NULL ELSE repeat('e', 64) END,
      CASE WHEN n % 20 = 0 THEN 'failed' WHEN n % 7 = 0 THEN 'pending' ELSE 'applied' END,
      CASE WHEN n % 20 = 0 THEN 'refused' ELSE '' END, $2, CASE WHEN n % 20 = 0 THEN NULL ELSE $2::timestamptz END
    FROM s`,
    [orgId, now],
  );
  await sql.query(
    `
    WITH rules AS (
      INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity)
      SELECT $1, 'rule ' || r, 'disk.read_iops', 'avg', '>', 50, 300, 'organization', (ARRAY['critical', 'warning', 'info', 'warning'])[r]
      FROM generate_series(1, 4) AS r RETURNING id, severity),
    s AS (SELECT id, row_number() OVER (ORDER BY hostname) AS n FROM servers WHERE org_id = $1)
    INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, value, updated_at)
    SELECT $1, rules.id, s.id, 'sda',
      CASE WHEN rules.severity = 'critical' AND s.n % 50 = 0 THEN 'firing' WHEN rules.severity = 'warning' AND s.n % 10 = 0 THEN 'firing' ELSE 'ok' END,
      $2, 1, $2
    FROM rules, s`,
    [orgId, now],
  );
  // Each server's merged read histogram of the last hour, as the worker's read_latency_summary
  // job leaves it (its own cost: apps/worker/bench/read-latency-summary.ts): a log-normal-ish
  // spread, one server in nine without eBPF latency (no row: not measured).
  await sql.query(
    `
    WITH s AS (SELECT id, row_number() OVER (ORDER BY hostname) AS n FROM servers WHERE org_id = $1)
    INSERT INTO server_read_latency (org_id, server_id, window_start, window_end, reads, buckets, computed_at)
    SELECT $1, id, $2::timestamptz - interval '61 minutes', $2::timestamptz - interval '1 minute', h.reads, h.buckets, $2
    FROM s, LATERAL (SELECT ARRAY(SELECT CASE WHEN b BETWEEN 4 AND 14 THEN (60000 / (1 + abs(b - 8 - (s.n % 3))))::float8
                                              WHEN b = 20 THEN (s.n % 5)::float8 ELSE 0 END FROM generate_series(0, 27) AS b) AS buckets) AS hb,
      LATERAL (SELECT (SELECT sum(x) FROM unnest(hb.buckets) AS x) AS reads, hb.buckets) AS h
    WHERE s.n % 9 <> 0`,
    [orgId, now],
  );
}

async function timeIt(db: TestDatabase, label: string, runs: number, run: () => Promise<unknown>): Promise<void> {
  await run(); // the plan and the pages it reads, once
  const timings: number[] = [];
  const cpuBefore = process.cpuUsage();
  const databaseBefore = await databaseCpuMs(db);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run();
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

async function main() {
  const db = await createTestDatabase(keep ? { name: `fleet_page_bench_${config.servers}` } : undefined);
  try {
    let orgId: string;
    if (db.reused) {
      orgId = (await db.pool.query<{ org_id: string }>("SELECT org_id FROM fleet_page_bench_loaded")).rows[0]!.org_id;
    } else {
      const started = performance.now();
      orgId = (await createOrganisation(db.prisma, "Fleet")).orgId;
      const other = (await createOrganisation(db.prisma, "Other")).orgId;
      await loadFleet(db, orgId, config.servers, config.tags);
      await loadFleet(db, other, 100, 5);
      await db.pool.query("VACUUM ANALYZE");
      await db.pool.query("CREATE TABLE fleet_page_bench_loaded AS SELECT $1::text AS org_id", [orgId]);
      console.error(`loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    const {
      rows: [sizes],
    } = await db.pool.query<{ servers: string; latency: string }>(
      `SELECT (SELECT count(*) FROM servers WHERE org_id = $1)::text AS servers, (SELECT count(*) FROM server_read_latency WHERE org_id = $1)::text AS latency`,
      [orgId],
    );
    console.log(
      `fleet: ${sizes!.servers} servers, ${sizes!.latency} with a read latency summary; load average ${(await import("node:os"))
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    const query = (input: FleetQueryInput) => () => queryFleet(db, orgId, fleetQuerySchema.parse(input), now);
    console.log("\n| what | runs | p50 ms | p95 ms | max ms | bench CPU ms/run | database CPU ms/run |\n|---|---|---|---|---|---|---|");
    await timeIt(db, "first page, no filter", config.runs, query({}));
    await timeIt(db, "status=online, grouped by tag", config.runs, query({ status: "online", group: "tag" }));
    await timeIt(
      db,
      "search + OS + policy=applied, grouped by tag",
      config.runs,
      query({ q: "web", os: "Debian GNU/Linux 12 (bookworm)", policy: "applied", group: "tag" }),
    );
    await timeIt(
      db,
      "alert=firing sorted by alerts, grouped by tag",
      config.runs,
      query({ alert: "firing", sort: "firing", dir: "desc", group: "tag" }),
    );
    await timeIt(db, "missing=ebpf.mrc, page 3 of 25", config.runs, query({ missing: "ebpf.mrc", pageSize: 25, page: 3 }));
    await timeIt(db, "grouped by tag, no filter", config.runs, query({ group: "tag" }));
  } finally {
    if (keep) await Promise.all([db.prisma.$disconnect(), db.pool.end()]);
    else await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
