// How fast the server detail page's data comes back on a week of 10-second samples.
//   eval "$(bash scripts/test-db.sh start)"   (repository root)
//   node --import tsx apps/console/bench/metrics-query.bench.ts   (from apps/console: npm run bench)
// Loads a fleet of SERVERS servers × DEVICES devices × 7 days at 10 s into a fresh copy of the
// migrated template, brings the aggregates up to date, then times queryServerMetrics (the whole
// API operation: tenant check, both series queries, columnar shaping) per range.
import { performance } from "node:perf_hooks";
import { createTestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import { queryServerMetrics } from "@/modules/metrics/lib/query-server-metrics";
import type { MetricsRange } from "@/modules/metrics/types/metrics";

const servers = Number(process.env.SERVERS ?? 10);
const devices = Number(process.env.DEVICES ?? 4);
const runs = Number(process.env.RUNS ?? 30);
const now = new Date("2026-11-21T12:00:00Z");
const weekAgo = new Date(now.getTime() - 7 * 24 * 3600 * 1000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function main() {
  const db = await createTestDatabase();
  try {
    const { orgId } = await createOrganisation(db.prisma, "Bench");
    const serverIds: string[] = [];
    for (let s = 0; s < servers; s++) serverIds.push((await createServer(db.prisma, orgId, `db${s}`)).id);

    let started = performance.now();
    await db.pool.query(
      `INSERT INTO disk_io
       SELECT t, $1, s::uuid, 'sd' || chr(97 + d), 10, 1000 + d, 500, 4096000, 2048000, 0, 0, 2000, 2000, 5000, 7000, 1
       FROM generate_series($2::timestamptz + interval '10 s', $3::timestamptz, interval '10 s') AS t,
            unnest($4::text[]) AS s, generate_series(0, $5 - 1) AS d`,
      [orgId, weekAgo, now, serverIds, devices],
    );
    await db.pool.query(
      `INSERT INTO memory
       SELECT t, $1, s::uuid, 16e9, 8e9, 1e9, 4e9, 1e8, 5e7, 2e9, 2e9
       FROM generate_series($2::timestamptz + interval '10 s', $3::timestamptz, interval '10 s') AS t, unnest($4::text[]) AS s`,
      [orgId, weekAgo, now, serverIds],
    );
    const loadSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await rollUpAggregates(db.pool);
    const rollupSeconds = (performance.now() - started) / 1000;
    await db.pool.query("VACUUM ANALYZE");
    const { rows } = await db.pool.query<{ disk: string; memory: string }>(
      "SELECT (SELECT count(*) FROM disk_io) AS disk, (SELECT count(*) FROM memory) AS memory",
    );
    console.log(
      `loaded ${rows[0]?.disk} disk_io and ${rows[0]?.memory} memory rows (${servers} servers × ${devices} devices × 7 d at 10 s) in ${loadSeconds.toFixed(1)} s; aggregates in ${rollupSeconds.toFixed(1)} s`,
    );

    console.log("| range | source | points per device | median ms | p95 ms |");
    console.log("|---|---|---|---|---|");
    for (const range of ["1h", "24h", "7d"] as MetricsRange[]) {
      const timings: number[] = [];
      let points = 0;
      let source = "";
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const result = await queryServerMetrics(db, orgId, serverIds[i % servers]!, range, now);
        timings.push(performance.now() - t0);
        points = result.devices[0]?.time.length ?? 0;
        source = result.source.disk;
      }
      timings.sort((a, b) => a - b);
      console.log(`| ${range} | ${source} | ${points} | ${percentile(timings, 50).toFixed(1)} | ${percentile(timings, 95).toFixed(1)} |`);
    }
  } finally {
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
