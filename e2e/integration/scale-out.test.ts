// Two gateways and two workers on one database, as a scaled-out deployment runs them: four real
// agents (each a machine of its own) spread over both gateways and moved between them keep
// exactly-once; the rollup, retention and policy-materialisation jobs run once, not once per
// worker, counted by probes in the database (support/job-probes.ts); and a policy change
// reaches the agents on both gateways, because each gateway LISTENs for the trigger's NOTIFY
// rather than for changes made in its own process. Needs root (private mount namespaces give
// each agent its own machine id). Ports 25580–25582 (below the ephemeral range, which a busy
// machine fills with client ports), or SPINDLE_SCALE_OUT_PG_PORT and
// SPINDLE_SCALE_OUT_GATEWAY_PORT (and the next port).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { eventually, InstalledAgent } from "../support/agent";
import { GatewayProcess } from "../support/gateway";
import { jobProbesSql } from "../support/job-probes";
import { expectedHash } from "../support/policy-stack";
import { PostgresCluster } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";
import { WorkerProcess } from "../support/worker";

const pgPort = Number(process.env.SPINDLE_SCALE_OUT_PG_PORT ?? 25580);
const gatewayPort = Number(process.env.SPINDLE_SCALE_OUT_GATEWAY_PORT ?? 25581);

describe("two gateways and two workers on one database", {
  skip: userInfo().uid !== 0 && "needs root: each agent needs a machine id of its own",
}, () => {
  let cluster: PostgresCluster;
  let databaseUrl = "";
  let gateways: GatewayProcess[] = [];
  // Every worker asks for a rollup every second, so the two compete for the same ranges all along.
  const newWorkers = () => [0, 1].map(() => new WorkerProcess(databaseUrl, { SPINDLE_ROLLUP_INTERVAL_SECONDS: "1" }));
  let workers: WorkerProcess[] = [];
  let agents: InstalledAgent[] = [];
  /** Which gateway each agent sends to: agents 0 and 2 to the first, 1 and 3 to the second. */
  const home = (i: number) => gateways[i % 2]!;
  let db: pg.Pool;
  let orgId = "";
  const serverIds: string[] = [];

  const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows;

  function pointAt(agent: InstalledAgent, gateway: GatewayProcess): void {
    const yaml = readFileSync(agent.config, "utf8");
    writeFileSync(agent.config, yaml.replace(/^gateway:.*$/m, `gateway: ${gateway.url}`), { mode: 0o600 });
  }

  async function explained<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      console.error(
        [
          ...gateways.map((g, i) => `gateway ${i}:\n${g.output}`),
          ...workers.map((w, i) => `worker ${i}:\n${w.output}`),
          ...agents.map((a, i) => `agent ${i}:\n${a.output}`),
        ].join("\n"),
      );
      throw error;
    }
  }

  before(async () => {
    cluster = new PostgresCluster(pgPort);
    databaseUrl = cluster.url("spindle");
    gateways = [new GatewayProcess(gatewayPort, databaseUrl), new GatewayProcess(gatewayPort + 1, databaseUrl)];
    workers = newWorkers();
    agents = [0, 1, 2, 3].map(() => new InstalledAgent());
    cluster.start();
    cluster.createMigratedDatabase();
    db = new pg.Pool({ connectionString: databaseUrl, max: 3 });
    await db.query(jobProbesSql);
    const client = await db.connect();
    const { orgId: org, token } = await seedOrganisationWithToken(client as unknown as pg.Client, "scale-out");
    client.release();
    orgId = org;
    for (const gateway of gateways) await gateway.start();
    for (const worker of workers) worker.start();
    for (const [i, agent] of agents.entries()) {
      agent.useMachineId(randomBytes(16).toString("hex"));
      agent.install(InstalledAgent.oneLiner(home(i).url, token));
      agent.setInterval(1);
      // eBPF off: four agents' probes would only load the machine; the policy asks for "auto".
      writeFileSync(
        agent.config,
        `${readFileSync(agent.config, "utf8")
          .replace(/^ebpf:.*\n/m, "")
          .trimEnd()}\nebpf: off\n`,
        { mode: 0o600 },
      );
      agent.start();
      serverIds.push(/^server_id:\s*"?([0-9a-f-]{36})"?\s*$/m.exec(readFileSync(agent.config, "utf8"))![1]!);
    }
  });

  after(async () => {
    for (const agent of agents) await agent.destroy();
    for (const worker of workers) await worker.stop();
    for (const gateway of gateways) await gateway.stop();
    await db?.end();
    cluster?.destroy();
  });

  const hwm = async (serverId: string) =>
    Number((await query<{ hwm: string }>("SELECT batch_hwm AS hwm FROM agents WHERE server_id = $1", [serverId]))[0]?.hwm ?? 0);

  test("four agents on two gateways are four servers, each written exactly once while moved between gateways", () =>
    explained(async () => {
      assert.equal(new Set(serverIds).size, 4, "each agent enrolled as a server of its own");
      for (const serverId of serverIds) await eventually(`batches from ${serverId}`, async () => (await hwm(serverId)) >= 3 || undefined);

      // The first gateway goes away (a deploy, a crash): its agents spool, then a load balancer
      // would send them to the other; here their configuration does, and they replay there.
      await gateways[0]!.stop();
      const moved = [0, 2];
      for (const i of moved) {
        const spooledFrom = agents[i]!.status().lastBatchSeq;
        await eventually(`agent ${i} to spool while its gateway is down`, () => agents[i]!.status().spool.batches >= 2 || undefined);
        await agents[i]!.stop();
        pointAt(agents[i]!, gateways[1]!);
        agents[i]!.start();
        await eventually(
          `agent ${i}'s backlog to reach the other gateway`,
          async () => (await hwm(serverIds[i]!)) > spooledFrom + 1 || undefined,
        );
      }
      // And back: the first gateway returns and takes the other pair.
      await gateways[0]!.start();
      for (const i of [1, 3]) {
        const before = await hwm(serverIds[i]!);
        await agents[i]!.stop();
        pointAt(agents[i]!, gateways[0]!);
        agents[i]!.start();
        await eventually(
          `agent ${i} to deliver through the first gateway`,
          async () => (await hwm(serverIds[i]!)) > before + 2 || undefined,
        );
      }

      for (const [i, agent] of agents.entries()) {
        await agent.stop();
        const { spool, lastBatchSeq } = agent.status();
        const [written] = await query<{ hwm: number; rows: number }>(
          `SELECT (SELECT batch_hwm FROM agents WHERE server_id = $1)::int AS hwm,
                  (SELECT count(*) FROM memory WHERE server_id = $1)::int AS rows`,
          [serverIds[i]],
        );
        // Each batch holds exactly one memory sample: rows = batches written, none twice, none lost.
        assert.equal(written!.rows, written!.hwm, `agent ${i}: every acknowledged batch was written once`);
        assert.equal(written!.hwm + spool.batches, lastBatchSeq, `agent ${i}: every batch is written or still spooled`);
        agent.start();
      }
      assert.deepEqual(await query("SELECT server_id, device, time FROM disk_io GROUP BY 1, 2, 3 HAVING count(*) > 1"), []);
    }));

  test("each rollup range is claimed by one worker and rolled up by that claim alone", () =>
    explained(async () => {
      // Every insert so far queued a range; wait until the workers have drained them all.
      await eventually(
        "the rollup queue to drain",
        async () => (await query<{ n: number }>("SELECT count(*)::int AS n FROM rollup_pending"))[0]!.n === 0 || undefined,
      );
      const [counts] = await query<{ queued: number; claimed: number; twice: number; unclaimed: number }>(
        `SELECT (SELECT count(*) FROM probe.rollup_queued)::int AS queued,
                (SELECT count(*) FROM probe.rollup_claimed)::int AS claimed,
                (SELECT count(*) FROM (SELECT id FROM probe.rollup_claimed GROUP BY id HAVING count(*) > 1) t)::int AS twice,
                (SELECT count(*) FROM probe.rollup_queued q WHERE NOT EXISTS (SELECT 1 FROM probe.rollup_claimed c WHERE c.id = q.id))::int AS unclaimed`,
      );
      assert.ok(counts!.queued > 20, `enough ranges to compete for: ${counts!.queued}`);
      assert.deepEqual({ ...counts, queued: undefined }, { queued: undefined, claimed: counts!.queued, twice: 0, unclaimed: 0 });

      // A transaction writes exactly the minutes its own claimed memory ranges touch: no run
      // rolls up what it did not claim, and no claim is rolled up by a second transaction.
      const mismatched = await query(
        `WITH claimed AS (
           SELECT DISTINCT c.txid, c.server_id, m.bucket FROM probe.rollup_claimed c
           CROSS JOIN LATERAL generate_series(date_trunc('minute', c.first_time), date_trunc('minute', c.last_time), interval '1 minute') AS m(bucket)
           WHERE c.source = 'memory'),
         written AS (SELECT DISTINCT txid, server_id, bucket FROM probe.memory_1m_written)
         (SELECT 'written, not claimed' AS what, * FROM written EXCEPT SELECT 'written, not claimed', * FROM claimed)
         UNION ALL
         (SELECT 'claimed, not written', * FROM claimed EXCEPT SELECT 'claimed, not written', * FROM written)`,
      );
      assert.deepEqual(mismatched, []);
      const [twiceInOneRun] = await query<{ n: number }>(
        "SELECT count(*)::int AS n FROM (SELECT 1 FROM probe.memory_1m_written GROUP BY txid, server_id, bucket HAVING count(*) > 1) t",
      );
      assert.equal(twiceInOneRun!.n, 0, "a run writes each bucket once");

      // And the aggregates hold every raw sample exactly once.
      assert.deepEqual(
        await query(
          `SELECT r.server_id FROM (SELECT server_id, count(*) AS n FROM memory GROUP BY 1) r
         FULL JOIN (SELECT server_id, sum(samples) AS n FROM memory_1m GROUP BY 1) a USING (server_id)
         WHERE r.n IS DISTINCT FROM a.n`,
        ),
        [],
      );
    }));

  let policyId = "";
  async function saveOrganisationDefault(intervalSeconds: number): Promise<string> {
    const document = { schemaVersion: 1 as const, telemetry: { intervalSeconds, ebpf: "auto" as const } };
    if (!policyId) {
      const [policy] = await query<{ id: string }>(
        "INSERT INTO policies (org_id, name) VALUES ($1, 'Organisation default') RETURNING id::text",
        [orgId],
      );
      policyId = policy!.id;
      await query("INSERT INTO policy_assignments (org_id, policy_id, scope) VALUES ($1, $2, 'organization')", [orgId, policyId]);
    }
    // As the console saves a version: the worker materialises it, the table's trigger NOTIFYs.
    await query(
      `INSERT INTO policy_versions (policy_id, org_id, version, document)
       SELECT $1, $2, coalesce(max(version), 0) + 1, $3 FROM policy_versions WHERE policy_id = $1`,
      [policyId, orgId, JSON.stringify(document)],
    );
    return expectedHash(document);
  }

  test("a policy change reaches the agents on both gateways and is materialised once per server", () =>
    explained(async () => {
      await query("TRUNCATE probe.effective_policy_written");
      const changes = [3, 4, 5];
      for (const interval of changes) {
        const hash = await saveOrganisationDefault(interval);
        await eventually(
          `policy ${hash} applied on all four servers`,
          async () => {
            const rows = await query<{ n: number }>(
              "SELECT count(*)::int AS n FROM server_policy_status WHERE status = 'applied' AND applied_hash = $1",
              [hash],
            );
            return rows[0]!.n === 4 || undefined;
          },
          60_000,
        );
        for (const [i, agent] of agents.entries()) {
          await eventually(
            `agent ${i} (on gateway ${agents.indexOf(agent) % 2 === 0 ? 1 : 0}) to sample every ${interval} s`,
            () => agent.status().intervalSeconds === interval || undefined,
            15_000,
          );
        }
      }
      // One write per server per change: neither worker materialised a change the other had.
      const writes = await query<{ server_id: string; n: number }>(
        "SELECT server_id::text, count(*)::int AS n FROM probe.effective_policy_written GROUP BY 1 ORDER BY 1",
      );
      assert.deepEqual(
        writes.map((w) => [w.server_id, w.n]),
        [...serverIds].sort().map((id) => [id, changes.length]),
      );
    }));

  test("retention missed while every worker was down runs once when both come back", () =>
    explained(async () => {
      for (const worker of workers) await worker.stop();
      // Both workers were away through the last :17; expired samples wait in the raw table.
      const [{ n: registered }] = (await query<{ n: number }>(
        `UPDATE graphile_worker._private_known_crontabs
         SET known_since = now() - interval '3 hours', last_execution = now() - interval '2 hours'
         WHERE identifier = 'retention' RETURNING 1 AS n`,
      )) as [{ n: number }];
      assert.equal(registered, 1, "the workers registered the retention crontab");
      await query(
        `INSERT INTO memory (time, org_id, server_id, total_bytes) SELECT now() - interval '40 days' - i * interval '10 s', $1, $2, 1
         FROM generate_series(1, 100) AS i`,
        [orgId, serverIds[0]],
      );
      await query("TRUNCATE probe.memory_deletes");

      const [{ restarted }] = (await query<{ restarted: Date }>("SELECT now() AS restarted")) as [{ restarted: Date }];
      workers = newWorkers();
      for (const worker of workers) worker.start();
      await eventually(
        "the expired samples to be deleted",
        async () =>
          (await query<{ n: number }>("SELECT count(*)::int AS n FROM memory WHERE time < now() - interval '30 days'"))[0]!.n === 0 ||
          undefined,
      );
      // Both workers' start-up (backfill included) is long over once their crontab has ticked a
      // minute after it: only then can the count be final.
      const [{ started }] = (await query<{ started: Date }>("SELECT now() AS started")) as [{ started: Date }];
      await eventually(
        "a crontab tick after both workers started",
        async () =>
          (
            await query(
              "SELECT 1 FROM graphile_worker._private_known_crontabs WHERE identifier = 'rollup' AND last_execution > $1::timestamptz + interval '1 minute'",
              [started],
            )
          ).length > 0 || undefined,
        150_000,
      );
      await eventually(
        "no retention job left",
        async () =>
          (
            await query(
              "SELECT 1 FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = 'retention'",
            )
          ).length === 0 || undefined,
      );
      const [{ n, ended }] = (await query<{ n: number; ended: Date }>(
        "SELECT count(DISTINCT txid)::int AS n, now() AS ended FROM probe.memory_deletes",
      )) as [{ n: number; ended: Date }];
      // The backfill makes one run. A :17 that falls while the test runs is a scheduled run of its
      // own (seen in CI: two runs, one a minute after the other), and one near the restart may go to
      // either; so a run per :17 near or after the restart is allowed too. A run per worker would
      // double the whole count, which stays out of reach.
      const ticks = hourlyTicks(17, new Date(restarted.getTime() - 60_000), new Date(ended.getTime() + 60_000));
      assert.ok(
        n >= 1 && n <= 1 + ticks,
        `one retention run (plus ${ticks} scheduled at :17 while the test ran), not one per worker: ${n}`,
      );
    }));
});

/** How many times the wall clock passes minute `minute` of an hour between `from` and `to`. */
function hourlyTicks(minute: number, from: Date, to: Date): number {
  const hour = 3_600_000;
  const first = Math.floor(from.getTime() / hour) * hour + minute * 60_000;
  let count = 0;
  for (let tick = first; tick <= to.getTime(); tick += hour) if (tick >= from.getTime()) count++;
  return count;
}
