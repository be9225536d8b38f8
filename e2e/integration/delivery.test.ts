// The real agent binary, installed by the real install.sh from the real gateway, ships telemetry
// over loopback into a real PostgreSQL. Then the database goes away (and the gateway restarts)
// while the agent keeps sampling; when both are back, every sample has arrived exactly once.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import pg from "pg";
import { eventually, InstalledAgent } from "../support/agent";
import { GatewayProcess } from "../support/gateway";
import { PostgresCluster, queryRows } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";

const cluster = new PostgresCluster(55510);
const databaseUrl = cluster.url("spindle");
const gateway = new GatewayProcess(55511, databaseUrl);
const agent = new InstalledAgent();

function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  return queryRows<T>(databaseUrl, sql, params);
}

let token = "";

before(async () => {
  cluster.start();
  cluster.createMigratedDatabase();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  ({ token } = await seedOrganisationWithToken(client, "integration"));
  await client.end();
  await gateway.start();
});

after(async () => {
  await agent.destroy();
  await gateway.stop();
  cluster.destroy();
});

test("install.sh enrols the agent and keeps its credential private", () => {
  const oneLiner = InstalledAgent.oneLiner(gateway.url, token);
  agent.install(oneLiner);
  assert.equal(agent.configMode(), 0o600, "the config holds a credential: only root may read it");
  agent.install(oneLiner); // a second run is harmless: same agent, same server
  return query<{ agents: string; servers: string }>(
    "SELECT (SELECT count(*) FROM agents) AS agents, (SELECT count(*) FROM servers) AS servers",
  ).then(([counts]) => assert.deepEqual(counts, { agents: "1", servers: "1" }));
});

test("every sample arrives exactly once across a database outage and a gateway restart", async () => {
  try {
    await deliverAcrossOutages();
  } catch (error) {
    console.error(`agent output:\n${agent.output}\ngateway output:\n${gateway.output}`);
    throw error;
  }
});

async function deliverAcrossOutages(): Promise<void> {
  agent.setInterval(1);
  agent.start();
  await eventually(
    "the first memory samples",
    async () => Number((await query<{ n: string }>("SELECT count(*) AS n FROM memory"))[0].n) >= 3 || undefined,
  );

  cluster.stop();
  const health = await fetch(`${gateway.url}/healthz`);
  assert.equal(health.status, 503, "the gateway reports the database as unavailable");
  await eventually("batches to queue in the agent's spool", () => (agent.status().spool.batches >= 3 ? true : undefined));
  await gateway.stop();
  await new Promise((r) => setTimeout(r, 2000));
  await gateway.start();
  cluster.start();

  // A new batch is spooled every second, so "empty" is never seen: wait for the backlog instead.
  const backlogUpTo = agent.status().lastBatchSeq;
  await eventually(
    "the backlog to be delivered",
    () => ((agent.status().delivery.lastDeliveredSeq ?? 0) >= backlogUpTo + 2 ? true : undefined),
    90_000,
  );
  await agent.stop();

  const [written] = await query<{ hwm: string; memory_rows: string; distinct_times: string }>(
    `SELECT (SELECT batch_hwm FROM agents) AS hwm,
            (SELECT count(*) FROM memory) AS memory_rows,
            (SELECT count(DISTINCT time) FROM memory) AS distinct_times`,
  );
  const { spool, lastBatchSeq } = agent.status();
  // Each batch holds exactly one memory sample: rows = batches written, none twice, none lost.
  assert.equal(written.memory_rows, written.distinct_times, "no sample was written twice");
  assert.equal(Number(written.memory_rows), Number(written.hwm), "every acknowledged batch was written once");
  assert.equal(Number(written.hwm) + spool.batches, lastBatchSeq, "every batch is either written or still spooled");

  const duplicates = await query("SELECT server_id, device, time FROM disk_io GROUP BY 1, 2, 3 HAVING count(*) > 1");
  assert.deepEqual(duplicates, []);
  const devices = await query<{ device: string }>("SELECT DISTINCT device FROM disk_io");
  assert.ok(devices.length > 0, "per-device disk rows were written");
}

test("install.sh --uninstall removes the agent cleanly, twice", () => {
  agent.uninstall(gateway.url);
  agent.uninstall(gateway.url);
  assert.equal(existsSync(agent.binary), false);
  assert.equal(existsSync(agent.config), false);
});
