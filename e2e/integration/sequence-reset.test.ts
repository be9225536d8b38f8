// The real agent against the real gateway: the agent's state directory is wiped (as after a
// reinstall without re-enrolment, a restored VM snapshot or a cloned image) while the gateway's
// high-water mark for it is far ahead. The gateway tells the agent its mark (X-Spindle-Batch-Hwm),
// the agent continues above it, and its new samples are written instead of being acknowledged
// and dropped as replays (issue 11, defect 7).
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pg from "pg";
import { eventually, InstalledAgent } from "../support/agent";
import { GatewayProcess } from "../support/gateway";
import { PostgresCluster, queryRows } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";

const cluster = new PostgresCluster(Number(process.env.SPINDLE_SEQ_RESET_PG_PORT ?? 55520));
const databaseUrl = cluster.url("spindle");
const gateway = new GatewayProcess(Number(process.env.SPINDLE_SEQ_RESET_GATEWAY_PORT ?? 55521), databaseUrl);
const agent = new InstalledAgent();
const farAhead = 1_000_000;

function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  return queryRows<T>(databaseUrl, sql, params);
}

before(async () => {
  cluster.start();
  cluster.createMigratedDatabase();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { token } = await seedOrganisationWithToken(client, "sequence-reset");
  await client.end();
  await gateway.start();
  agent.install(InstalledAgent.oneLiner(gateway.url, token));
  agent.setInterval(1);
});

after(async () => {
  await agent.destroy();
  await gateway.stop();
  cluster.destroy();
});

test("an agent whose state went back continues above the gateway's mark and nothing new is dropped", async () => {
  try {
    agent.start();
    await eventually(
      "the first samples",
      async () => Number((await query<{ n: string }>("SELECT count(*) AS n FROM memory"))[0].n) >= 2 || undefined,
    );
    await agent.stop();

    // The state directory goes (sequence file and spool), and the gateway's mark is far ahead,
    // as for an agent that had run for a long time before its state was lost.
    rmSync(join(agent.prefix, "var/lib/spindle"), { recursive: true, force: true });
    await query("UPDATE agents SET batch_hwm = $1", [farAhead]);
    const [{ n: before }] = await query<{ n: string }>("SELECT count(*) AS n FROM memory");

    agent.start();
    // Without the mark every new batch (numbered from 1 again) would be acknowledged and dropped:
    // no new row would ever appear.
    await eventually(
      "new samples written after the reset",
      async () => Number((await query<{ n: string }>("SELECT count(*) AS n FROM memory"))[0].n) >= Number(before) + 2 || undefined,
      90_000,
    );
    await agent.stop();
    const [{ hwm }] = await query<{ hwm: string }>("SELECT batch_hwm AS hwm FROM agents");
    assert.ok(Number(hwm) > farAhead, `the mark moved on from ${farAhead} (now ${hwm})`);
    assert.ok(agent.status().lastBatchSeq > farAhead, "the agent numbers its batches above the gateway's mark");
    assert.match(agent.output, /continuing above it/, "the agent logs that its sequence jumped");
    const duplicates = await query("SELECT server_id, time FROM memory GROUP BY 1, 2 HAVING count(*) > 1");
    assert.deepEqual(duplicates, [], "no sample was written twice");
  } catch (error) {
    console.error(`agent output:\n${agent.output}\ngateway output:\n${gateway.output}`);
    throw error;
  }
});
