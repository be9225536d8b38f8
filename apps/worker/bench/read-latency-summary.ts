// Benchmark: one run of the read_latency_summary job (the fleet page's p99 figures) for a fleet
// of SERVERS servers × DEVICES devices with 70 minutes of 1-minute latency histograms, reads and
// writes (plain PostgreSQL: the worker's rollup tables), on a fresh copy of the test template.
// It runs every 5 minutes in the background; this is what each run costs the database.
//   eval "$(bash scripts/test-db.sh start)"; npm run bench:read-latency -w @spindle/worker
import { loadavg } from "node:os";
import { createPool } from "@spindle/db";
import { createTestDatabase } from "@spindle/db/testing";
import { refreshReadLatencySummaries } from "../src/jobs/read-latency-summary.js";

const servers = Number(process.env.SERVERS ?? 1000);
const devices = Number(process.env.DEVICES ?? 4);
const runs = Number(process.env.RUNS ?? 10);

const db = await createTestDatabase({ label: "bench_read_latency" });
const pool = createPool(db.url, { max: 2 });
const now = new Date(Math.floor(Date.now() / 60_000) * 60_000);
try {
  const loadStart = performance.now();
  await pool.query("INSERT INTO organizations (id, name, slug) VALUES ('bench', 'Bench', 'bench')");
  await pool.query(
    `INSERT INTO servers (org_id, machine_id, hostname, os) SELECT 'bench', 'm' || i, 'host-' || i, 'linux' FROM generate_series(1, $1) i`,
    [servers],
  );
  const buckets = Array.from({ length: 28 }, (_, i) => `CASE WHEN ${i} BETWEEN 4 AND 14 THEN 1000 / (1 + abs(${i} - 8)) ELSE 0 END`);
  // Minute by minute, as the rollup writes them: one minute's rows of the whole fleet together.
  for (let minute = 70; minute >= 1; minute--) {
    await pool.query(
      `INSERT INTO disk_latency_1m
       SELECT $1::timestamptz - make_interval(mins => $2::int), 'bench', s.id, 'sd' || chr(96 + d), op, 60,
         ${buckets.map((b) => `(${b})`).join(" + ")}, 0.5, ${buckets.join(", ")}, 6
       FROM servers s, generate_series(1, $3) d, unnest(ARRAY['read', 'write']) op`,
      [now, minute, devices],
    );
  }
  await pool.query("VACUUM ANALYZE");
  console.log(
    `loaded ${servers} servers × ${devices} devices × 70 minutes in ${((performance.now() - loadStart) / 1000).toFixed(0)} s; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const timings: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = await refreshReadLatencySummaries(pool, now);
    timings.push(performance.now() - started);
    if (result.servers !== servers) throw new Error(`expected ${servers} summaries, got ${result.servers}`);
  }
  timings.sort((a, b) => a - b);
  console.log(
    `read_latency_summary over ${servers} servers: p50 ${timings[Math.floor(runs / 2)]!.toFixed(0)} ms, max ${timings.at(-1)!.toFixed(0)} ms (${runs} runs)`,
  );
} finally {
  await pool.end();
  await db.drop();
}
