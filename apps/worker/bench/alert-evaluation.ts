// Benchmark: one alert evaluation of the default rules for a fleet of SERVERS servers × DEVICES
// devices with an hour of synthetic 1-minute aggregates (plain PostgreSQL: the worker's rollup
// tables), on a fresh copy of the test template. Target (issue 8): well inside the 30 s cycle.
//   eval "$(bash scripts/test-db.sh start)"; npm run bench -w @spindle/worker
import { createPool } from "@spindle/db";
import { createTestDatabase } from "@spindle/db/testing";
import { bucketSources, isSnapshotSource, latencyBucketColumns, snapshotSources } from "@spindle/domain";
import { evaluateOrganization } from "../src/alerts/evaluate.js";
import { fetchSourceRows, fetchWindowSums } from "@spindle/timeseries";

const servers = Number(process.env.SERVERS ?? 1000);
const devices = Number(process.env.DEVICES ?? 4);
const ticks = Number(process.env.TICKS ?? 10);
const historyMinutes = 60;

const db = await createTestDatabase({ label: "bench_alerts" });
const pool = createPool(db.url, { max: 4 });
const at0 = new Date(Math.floor(Date.now() / 60_000) * 60_000);
try {
  const loadStart = performance.now();
  await pool.query("INSERT INTO organizations (id, name, slug) VALUES ('bench', 'Bench', 'bench')");
  await pool.query(
    `INSERT INTO servers (org_id, machine_id, hostname, os, tags, last_seen_at)
     SELECT 'bench', 'm' || i, 'host-' || i, 'linux', ARRAY['rack-' || (i % 10)], $1::timestamptz + interval '1 hour' FROM generate_series(1, $2) i`,
    [at0, servers],
  );
  await pool.query(
    `INSERT INTO agents (org_id, server_id, credential_hash, telemetry_capabilities, telemetry_capabilities_at)
     SELECT 'bench', id, decode(md5(id::text), 'hex'), '{ebpf.block_latency,ebpf.block_split,ebpf.page_cache}', $1 FROM servers`,
    [at0],
  );
  await pool.query(`INSERT INTO server_policy_status (org_id, server_id, status) SELECT 'bench', id, 'applied' FROM servers`);
  await pool.query(
    `INSERT INTO fragmentation_scans (time, org_id, server_id, root, files, fragmented_files, extents, excess_extents, scan_duration_ms)
     SELECT $1::timestamptz - d * interval '1 day', 'bench', id, '/srv', 1000, 50, 5000, 2000 + 10 * (1 - d), 100 FROM servers, generate_series(0, 1) d`,
    [at0],
  );
  // One minute per bucket from an hour before the first tick to past the last one.
  const minutes = `generate_series($1::timestamptz - interval '${historyMinutes} minutes', $1::timestamptz + interval '${Math.ceil(ticks / 2) + 1} minutes', interval '1 minute') b`;
  const deviceList = `(SELECT 'sd' || chr(96 + n) AS device FROM generate_series(1, ${devices}) n) d`;
  await pool.query(
    `INSERT INTO disk_io_1m SELECT b, 'bench', s.id, d.device, 60, 3000, 1500, 1e8, 5e7, 10, 10, 3000, 1500, 18000, 60000, 4, 6
       FROM servers s, ${deviceList}, ${minutes}`,
    [at0],
  );
  const counts = (bucket: number) => latencyBucketColumns.map((_, i) => (i === bucket ? 3000 : 0)).join(", ");
  for (const [operation, bucket] of [
    ["read", 9],
    ["write", 10],
  ] as const) {
    await pool.query(
      `INSERT INTO disk_latency_1m (bucket, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${latencyBucketColumns.join(", ")}, samples)
       SELECT b, 'bench', s.id, d.device, '${operation}', 60, 3000, 1.5, ${counts(bucket)}, 6 FROM servers s, ${deviceList}, ${minutes}`,
      [at0],
    );
  }
  await pool.query(`INSERT INTO disk_split_io_1m SELECT b, 'bench', s.id, d.device, 60, 45, 6 FROM servers s, ${deviceList}, ${minutes}`, [
    at0,
  ]);
  await pool.query(`INSERT INTO page_cache_1m SELECT b, 'bench', s.id, 60, 600000, 30000, 6 FROM servers s, ${minutes}`, [at0]);
  await pool.query(
    `INSERT INTO read_cache_1m (bucket, org_id, server_id, interval_seconds, budget_bytes_samples, resident_bytes_samples, pinned_bytes_samples, managed_files_samples, backoffs, samples)
     SELECT b, 'bench', s.id, 60, 0, 0, 0, 0, 0, 6 FROM servers s, ${minutes}`,
    [at0],
  );
  for (const table of ["disk_latency_1h", "disk_split_io_1h", "page_cache_1h"]) {
    await pool.query(`INSERT INTO ${table} SELECT date_trunc('hour', bucket), org_id, server_id, ${table === "page_cache_1h" ? "" : "device, "}${
      table === "disk_latency_1h"
        ? `operation, sum(interval_seconds), sum(operations), sum(sum_seconds), ${latencyBucketColumns.map((c) => `sum(${c})`).join(", ")}, sum(samples)`
        : table === "disk_split_io_1h"
          ? "sum(interval_seconds), sum(split_ops), sum(samples)"
          : "sum(interval_seconds), sum(accesses), sum(misses), sum(samples)"
    }
      FROM ${table.replace("_1h", "_1m")} GROUP BY 1, 2, 3${table === "page_cache_1h" ? "" : ", 4"}${table === "disk_latency_1h" ? ", 5" : ""}`);
  }
  // Ten servers in trouble, so the run writes transitions: slow reads on their first device.
  await pool.query(
    `UPDATE disk_latency_1m SET bucket_09 = 0, bucket_19 = 3000 WHERE operation = 'read' AND device = 'sda'
       AND server_id IN (SELECT id FROM servers ORDER BY id LIMIT 10)`,
  );
  await pool.query("ANALYZE");
  const loadSeconds = (performance.now() - loadStart) / 1000;

  const timings: number[] = [];
  const results = [];
  for (let i = 0; i <= ticks; i++) {
    const at = new Date(at0.getTime() + i * 30_000);
    const start = performance.now();
    results.push(await evaluateOrganization(pool, "bench", at));
    timings.push(performance.now() - start);
  }
  // Where the time goes: each source's query as the default rules make it (window sums over
  // the last 5 minutes, newest bucket over 16; snapshots as of the tick).
  const sourceMs: Record<string, number> = {};
  const client = await pool.connect();
  try {
    const serverIds = (await client.query("SELECT id::text FROM servers")).rows.map((r) => r.id as string);
    const query = { orgId: "bench", from: new Date(at0.getTime() - 16 * 60_000), to: at0, serverIds };
    for (const source of [...bucketSources, ...snapshotSources]) {
      const start = performance.now();
      if (isSnapshotSource(source)) await fetchSourceRows(client, source, query);
      else await fetchWindowSums(client, source, query, new Date(at0.getTime() - 5 * 60_000));
      sourceMs[source] = Math.round(performance.now() - start);
    }
  } finally {
    client.release();
  }
  const steady = timings.slice(1).sort((a, b) => a - b);
  const states = (await pool.query("SELECT state, count(*)::int AS n FROM alert_states GROUP BY state ORDER BY state")).rows;
  const history = (await pool.query("SELECT count(*)::int AS n FROM alert_history")).rows[0].n;
  console.log(
    JSON.stringify(
      {
        servers,
        devices,
        historyMinutes,
        loadSeconds: Number(loadSeconds.toFixed(1)),
        rules: results[0]!.rules,
        subjectsPerEvaluation: results[1]!.subjects,
        firstEvaluationMs: Math.round(timings[0]!),
        steadyMedianMs: Math.round(steady[Math.floor(steady.length / 2)]!),
        steadyMaxMs: Math.round(steady[steady.length - 1]!),
        states,
        historyRows: history,
        sourceMs,
      },
      null,
      2,
    ),
  );
} finally {
  await pool.end();
  await db.drop();
}
