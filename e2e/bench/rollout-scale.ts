// A staged rollout at fleet scale (issue 23): 10,000 simulated agents (apps/gateway's
// spindle-opamp-load in -hold mode: real OpAMP WebSocket clients answering every RemoteConfig as
// the agent does), the real gateway, worker and console, a PostgreSQL of its own. 9,500 servers
// carry the tag the change goes to (500 never change: controls for the last wave). The change is
// saved through the console's API as a rollout in four waves (a canary of 100 across tags, then
// 10 %, 50 %, 100 %); each wave's guard window is ended 2 minutes after its servers applied,
// through the database (the product's minimum is 5 minutes; time is the only thing driven).
//
// Telemetry: the simulated agents speak OpAMP only, so this script writes each server's read-cache
// and page-cache rows every 15 s itself (SQL, one statement per family per round; a harmless
// change: the same level before and after, with per-server noise), for the guards to read. These
// rows are synthetic and exist to time the guard evaluation on 10,000 servers' data.
//
// Per wave it prints the servers, push → APPLIED (the wave's release, rollout_waves.released_at,
// to each server's APPLIED of the wave's hash as the gateway received it,
// server_policy_status.applied_at; both on the database's clock) p50 / p99 / max, and the guard
// evaluation's time (rollout_waves.evaluation_ms, the worker's own measurement of the window-end
// reading). Commands and the figures of a run: docs/benchmarks.md, "Staged rollouts at fleet scale".
//
//   npx turbo run build && (cd apps/gateway && go build -o bin/spindle-opamp-load ./cmd/spindle-opamp-load)
//   node --import tsx e2e/bench/rollout-scale.ts [agents=10000]
// Ports: SPINDLE_ROLLOUT_BENCH_PG_PORT (55620) and the two after it.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { eventually } from "../support/agent";
import { ConsoleProcess, ConsoleSession } from "../support/console";
import { GatewayProcess, repoRoot } from "../support/gateway";
import { PostgresCluster } from "../support/postgres";
import { WorkerProcess } from "../support/worker";

const agents = Number(process.argv[2] ?? 10_000);
const controls = Math.round(agents * 0.05);
const port = Number(process.env.SPINDLE_ROLLOUT_BENCH_PG_PORT ?? 55620);
const windowSeconds = 120;
const cluster = new PostgresCluster(port);
const databaseUrl = cluster.url("spindle");
const gateway = new GatewayProcess(port + 1, databaseUrl, { SPINDLE_RATE_PER_ADDRESS: "0", SPINDLE_LOG_LEVEL: "warn" });
const consoleApp = new ConsoleProcess(port + 2, databaseUrl, gateway.url);
const worker = new WorkerProcess(databaseUrl, { SPINDLE_ROLLOUT_STEP_SECONDS: "2", SPINDLE_ROLLOUT_SETTLE_SECONDS: "20" });
const db = new pg.Pool({ connectionString: databaseUrl, max: 4 });
const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows;
const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${message}`);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One round of telemetry for every server: read-cache hits and misses, page-cache accesses and misses, per-server levels. */
async function writeTelemetry(orgId: string): Promise<void> {
  await db.query(
    `INSERT INTO read_cache (time, org_id, server_id, interval_seconds, hits_bytes, misses_bytes, backoffs)
     SELECT now(), org_id, id, 15, (50000000 * (0.9 + 0.2 * random()))::bigint, (2000000 * (1 + ((hashtext(id::text) & 15) / 30.0)) * (0.9 + 0.2 * random()))::bigint, 0
       FROM servers WHERE org_id = $1`,
    [orgId],
  );
  await db.query(
    `INSERT INTO page_cache (time, org_id, server_id, interval_seconds, accesses, misses)
     SELECT now(), org_id, id, 15, (400000 * (0.9 + 0.2 * random()))::bigint, (20000 * (1 + ((hashtext(id::text) & 15) / 30.0)) * (0.9 + 0.2 * random()))::bigint
       FROM servers WHERE org_id = $1`,
    [orgId],
  );
}

async function main(): Promise<void> {
  cluster.start();
  cluster.createMigratedDatabase();
  await gateway.start();
  worker.start();
  await consoleApp.start();
  const id = randomBytes(3).toString("hex");
  const session = new ConsoleSession(consoleApp.url);
  await session.signUp(`Scale ${id}`, `scale-${id}@example.test`, `pw-${id}-long-enough`, `Scale Corp ${id}`);
  const [{ id: orgId }] = (await query<{ id: string }>("SELECT id FROM organizations WHERE name = $1", [`Scale Corp ${id}`])) as [
    { id: string },
  ];

  log(`enrolling and connecting ${agents} simulated agents`);
  const load = spawn(
    join(repoRoot, "apps/gateway/bin/spindle-opamp-load"),
    ["-database-url", databaseUrl, "-gateway", gateway.url, "-agents", String(agents), "-ingest-agents", "0", "-org-id", orgId, "-hold"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: load.stdout! }).on("line", (line) => line.startsWith("READY ") && resolve());
    load.on("exit", (code) => reject(new Error(`spindle-opamp-load exited with ${code} before its fleet was ready`)));
  });
  try {
    const servers = (await query<{ id: string }>("SELECT id::text FROM servers WHERE org_id = $1 ORDER BY id", [orgId])).map((r) => r.id);
    const tagged = servers.slice(controls);
    // Tags "fleet" and one of four racks (so "across tags" means something to the canary), in
    // slices: the gateway updates the same rows' last_seen_at in batches meanwhile, and a deadlock
    // between the two is retried.
    for (let start = 0; start < tagged.length; start += 500) {
      const slice = tagged.slice(start, start + 500);
      for (let attempt = 1; ; attempt++) {
        try {
          await db.query(
            `UPDATE servers s SET tags = ARRAY['fleet', 'rack-' || (t.n % 4)] FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n) WHERE s.id = t.id`,
            [slice],
          );
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== "40P01" || attempt === 5) throw error;
        }
      }
    }

    const { policy } = await session.post<{ policy: { id: string } }>("/api/policies", {
      name: "Fleet",
      document: { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/data/**"] } },
      comment: "the read cache on",
    });
    await session.post("/api/policies/assignments", {
      scope: "tag",
      tag: "fleet",
      policyId: policy.id,
      delivery: { mode: "now", confirm: true },
    });
    await eventually(
      "every tagged agent on the first policy",
      async () => {
        const [row] = await query<{ n: number }>(
          `SELECT count(*)::int AS n FROM server_policy_status s JOIN server_effective_policies e ON e.server_id = s.server_id
          WHERE s.org_id = $1 AND s.status = 'applied' AND s.applied_hash = e.hash AND e.layers <> '[]'`,
          [orgId],
        );
        return row!.n === tagged.length || undefined;
      },
      600_000,
    );

    log("writing telemetry every 15 s; 3 minutes of it before the rollout");
    await writeTelemetry(orgId);
    const telemetry = setInterval(() => void writeTelemetry(orgId).catch((error: Error) => log(`telemetry: ${error.message}`)), 15_000);
    try {
      await new Promise((resolve) => setTimeout(resolve, 180_000));
      const load1 = (await import("node:os")).loadavg()[0]!;
      const saveStarted = performance.now();
      const { delivery } = await session.post<{ delivery: { mode: string; rolloutId: string; servers: number; waves: number } }>(
        `/api/policies/${policy.id}/versions`,
        {
          document: { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/data/**"], budgetPercentOfAvailable: 30 } },
          comment: "a larger budget",
          delivery: {
            mode: "rollout",
            plan: { canary: { kind: "spread", count: 100 }, wavePercents: [10, 50, 100], guardWindowMinutes: 5 },
          },
        },
      );
      const saveSeconds = (performance.now() - saveStarted) / 1000;
      if (delivery.mode !== "rollout") throw new Error(`expected a rollout, got ${JSON.stringify(delivery)}`);
      log(`rollout ${delivery.rolloutId}: ${delivery.servers} servers in ${delivery.waves} waves (load ${load1.toFixed(1)})`);
      const rows: string[] = [];
      for (let wave = 0; wave < delivery.waves; wave++) {
        await eventually(
          `wave ${wave} watched`,
          async () => {
            const updated = await query(
              `UPDATE rollout_waves SET guard_ends_at = applied_at + make_interval(secs => $3)
              WHERE rollout_id = $1 AND wave = $2 AND state = 'watching' RETURNING wave`,
              [delivery.rolloutId, wave, windowSeconds],
            );
            return updated.length === 1 || undefined;
          },
          900_000,
        );
        const [w] = await eventually(
          `wave ${wave} decided`,
          async () => {
            const found = await query<{ state: string; label: string; evaluation_ms: number | null; hold_reason: string }>(
              "SELECT state, label, evaluation_ms, hold_reason FROM rollout_waves WHERE rollout_id = $1 AND wave = $2",
              [delivery.rolloutId, wave],
            );
            return ["passed", "holding", "rolled_back"].includes(found[0]!.state) ? found : undefined;
          },
          900_000,
        );
        const latencies = (
          await query<{ ms: number }>(
            `SELECT extract(epoch FROM st.applied_at - w.released_at) * 1000 AS ms
             FROM rollout_servers rs JOIN rollout_waves w ON w.rollout_id = rs.rollout_id AND w.wave = rs.wave
             JOIN server_policy_status st ON st.server_id = rs.server_id
            WHERE rs.rollout_id = $1 AND rs.wave = $2 AND st.applied_hash = rs.target_hash`,
            [delivery.rolloutId, wave],
          )
        )
          .map((r) => Number(r.ms))
          .sort((a, b) => a - b);
        const [guard] = await query<{ status: string }>(
          `SELECT r->>'status' AS status FROM rollout_waves, jsonb_array_elements(readings) r WHERE rollout_id = $1 AND wave = $2 AND r->>'guard' = 'comparative'`,
          [delivery.rolloutId, wave],
        );
        const line = `| ${w!.label} | ${latencies.length} | ${(percentile(latencies, 50) / 1000).toFixed(1)} s | ${(percentile(latencies, 99) / 1000).toFixed(1)} s | ${(latencies.at(-1)! / 1000).toFixed(1)} s | ${Math.round(w!.evaluation_ms ?? NaN)} ms | ${w!.state}, comparison ${guard?.status ?? "?"} |`;
        log(line);
        rows.push(line);
        if (w!.state !== "passed") {
          log(`wave ${wave} did not pass: ${w!.hold_reason}`);
          break;
        }
      }
      console.log(
        `load average (1 min) at the start: ${load1.toFixed(1)}; saving the version and planning the rollout took ${saveSeconds.toFixed(1)} s`,
      );
      console.log("| wave | servers | push → APPLIED p50 | p99 | max | guard evaluation | outcome |");
      console.log("|---|---|---|---|---|---|---|");
      for (const row of rows) console.log(row);
    } finally {
      clearInterval(telemetry);
    }
  } finally {
    load.kill("SIGTERM");
  }
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    console.error(`worker:\n${worker.output.slice(-6000)}\ngateway:\n${gateway.output.slice(-3000)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await worker.stop();
    await consoleApp.stop();
    await gateway.stop();
    await db.end();
    cluster.destroy();
  });
