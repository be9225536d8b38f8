// How fast a server's before/after verdict comes back: the windows on seven previous days and the
// servers not yet changed, read from the 1-minute aggregates with the stall cap in SQL.
//   eval "$(bash scripts/test-db.sh start)"   (repository root)
//   node --import tsx apps/console/bench/verdict-query.bench.ts   (from apps/console: npm run bench:verdict)
// Loads a changed server with 8 days (a week before the change: the previous-days method), a new
// server changed at the same time with 2 days (the day before: servers not yet changed are read)
// and CONTROLS servers not yet changed with 2 days of once-a-minute samples (DEVICES devices;
// disk_io, disk_latency, page_cache, disk_split_io) into a fresh copy of the migrated template,
// brings the aggregates up to date, then times queryServerVerdict (the whole operation) for each
// changed server at the first provisional reading (1 h) and at the final one (24 h).
import { performance } from "node:perf_hooks";
import { createTestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import { queryServerVerdict } from "@/modules/gains/lib/query-verdicts";

const controls = Number(process.env.CONTROLS ?? 50);
const devices = Number(process.env.DEVICES ?? 2);
const runs = Number(process.env.RUNS ?? 20);
const changeAt = new Date("2026-11-20T10:00:00Z");
const day = 24 * 3600 * 1000;
const buckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function main() {
  // KEEP=<name> keeps the loaded database for EXPLAIN (drop it with psql afterwards).
  const keep = process.env.KEEP;
  const db = await createTestDatabase(keep ? { name: keep } : undefined);
  try {
    const { orgId } = await createOrganisation(db.prisma, "Bench");
    const changed = (await createServer(db.prisma, orgId, "changed")).id;
    const fresh = (await createServer(db.prisma, orgId, "fresh")).id;
    const controlIds: string[] = [];
    for (let s = 0; s < controls; s++) controlIds.push((await createServer(db.prisma, orgId, `control${String(s).padStart(3, "0")}`)).id);
    for (const server of [changed, fresh]) {
      await db.pool.query(
        `INSERT INTO server_effective_policies (org_id, server_id, document, hash, layers) VALUES ($1, $2, '{"schemaVersion": 1}', $3, '[]')`,
        [orgId, server, "b".repeat(64)],
      );
      await db.pool.query(
        `INSERT INTO server_policy_status (org_id, server_id, applied_hash, status, applied_at) VALUES ($1, $2, $3, 'applied', $4)`,
        [orgId, server, "b".repeat(64), changeAt],
      );
    }

    let started = performance.now();
    const load = async (servers: string[], from: Date, to: Date) => {
      const times = `generate_series($2::timestamptz + interval '30 s', $3::timestamptz, interval '1 minute') AS t, unnest($4::text[]) AS s`;
      const perDevice = `${times}, generate_series(0, $5 - 1) AS d`;
      const params = [orgId, from, to, servers, devices];
      const latency = "0.002 * (1 + 0.3 * sin(extract(epoch FROM t) / 600))";
      await db.pool.query(
        `INSERT INTO disk_io SELECT t, $1, s::uuid, 'sd' || chr(97 + d), 60, 600, 300, 2457600, 1228800, 0, 0, 1200, 1200, 3000, 4200, 1 FROM ${perDevice}`,
        params,
      );
      await db.pool.query(
        `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${buckets.join(", ")})
         SELECT t, $1, s::uuid, 'sd' || chr(97 + d), 'read', 60, 600, 600 * ${latency}, ${buckets.map((_, i) => (i === 12 ? "600" : "0")).join(", ")} FROM ${perDevice}`,
        params,
      );
      await db.pool.query(`INSERT INTO disk_split_io SELECT t, $1, s::uuid, 'sd' || chr(97 + d), 60, 30 FROM ${perDevice}`, params);
      await db.pool.query(`INSERT INTO page_cache SELECT t, $1, s::uuid, 60, 6000, 600 FROM ${times}`, params.slice(0, 4));
    };
    await load([changed], new Date(changeAt.getTime() - 7 * day), new Date(changeAt.getTime() + day));
    for (let i = 0; i < controlIds.length; i += 10)
      await load(controlIds.slice(i, i + 10), new Date(changeAt.getTime() - day), new Date(changeAt.getTime() + day));
    await load([fresh], new Date(changeAt.getTime() - day), new Date(changeAt.getTime() + day));
    const loadSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await rollUpAggregates(db.pool);
    const rollupSeconds = (performance.now() - started) / 1000;
    await db.pool.query("VACUUM ANALYZE");
    const { rows } = await db.pool.query<{ minutes: string }>("SELECT count(*) AS minutes FROM disk_latency_1m");
    console.log(
      `loaded ${rows[0]?.minutes} disk_latency_1m rows (a server × 8 d, a new server and ${controls} controls × 2 d, ${devices} devices) in ${loadSeconds.toFixed(1)} s; aggregates in ${rollupSeconds.toFixed(1)} s`,
    );

    console.log("| server | reading | method of mean read latency | median ms | p95 ms |");
    console.log("|---|---|---|---|---|");
    for (const [server, label, minutes] of [
      [changed, "provisional, 1 h", 62],
      [changed, "final, 24 h", 1442],
      [fresh, "provisional, 1 h", 62],
      [fresh, "final, 24 h", 1442],
    ] as const) {
      const timings: number[] = [];
      let method = "";
      for (let i = 0; i < runs; i++) {
        const begin = performance.now();
        const verdict = await queryServerVerdict(db, orgId, server, new Date(changeAt.getTime() + minutes * 60_000));
        timings.push(performance.now() - begin);
        const latency = verdict.metrics.find((metric) => metric.metric.key === "meanReadLatency");
        method =
          latency?.status === "verdict"
            ? latency.method
            : `not enough data: ${latency?.status === "not-enough-data" ? latency.reason : "?"}`;
      }
      timings.sort((a, b) => a - b);
      console.log(
        `| ${server === changed ? "a week of history" : "new (a day)"} | ${label} | ${method} | ${percentile(timings, 50).toFixed(0)} | ${percentile(timings, 95).toFixed(0)} |`,
      );
    }
  } finally {
    if (keep) await db.pool.end();
    else await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
