// Fault tests (issue 11): the real agent binary, the real gateway and a PostgreSQL of the test's
// own over loopback, with a fault injected while batches flow. Each ends with the same ledger:
// every batch the agent numbered is in the database once or still in its spool, none twice,
// none half-written. The figures they print go into docs/benchmarks.md ("Fault tests").
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import pg from "pg";
import { eventually, InstalledAgent } from "../support/agent";
import { fillSpool, isRoot, ledger, removeSpoolfill, SmallFilesystem, type Ledger } from "../support/faults";
import { GatewayProcess } from "../support/gateway";
import { PostgresCluster, queryRows } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";

const cluster = new PostgresCluster(Number(process.env.SPINDLE_FAULTS_PG_PORT ?? 55540));
const databaseUrl = cluster.url("spindle");
const gateway = new GatewayProcess(Number(process.env.SPINDLE_FAULTS_GATEWAY_PORT ?? 55541), databaseUrl);
// Thousands of spooled batches are fsynced one by one: on a memory filesystem that costs the
// agent's code, not this machine's disk.
const agentBase = existsSync("/dev/shm") ? "/dev/shm" : undefined;
const agents: InstalledAgent[] = [];

function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  return queryRows<T>(databaseUrl, sql, params);
}

before(async () => {
  cluster.start();
  cluster.createMigratedDatabase();
  await gateway.start();
});

after(async () => {
  for (const agent of agents) await agent.destroy();
  removeSpoolfill();
  await gateway.stop();
  cluster.destroy();
});

/** A new organisation and an agent enrolled into it (its own server), not yet running. */
async function enrolledAgent(name: string): Promise<{ agent: InstalledAgent; serverId: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { orgId, token } = await seedOrganisationWithToken(client, `faults-${name}`);
  await client.end();
  const agent = new InstalledAgent(agentBase);
  agents.push(agent);
  agent.install(InstalledAgent.oneLiner(gateway.url, token));
  agent.setInterval(1);
  const [{ server_id: serverId }] = await query<{ server_id: string }>("SELECT server_id FROM agents WHERE org_id = $1", [orgId]);
  return { agent, serverId };
}

async function delivered(agent: InstalledAgent, upTo: number, what: string): Promise<void> {
  await eventually(what, () => ((agent.status().delivery.lastDeliveredSeq ?? 0) >= upTo ? true : undefined), 90_000);
}

/** Stops the agent and checks exactly-once: returns the ledger for the figures. */
async function assertExactlyOnce(agent: InstalledAgent, serverId: string): Promise<Ledger & { numbered: number; leftInSpool: number }> {
  await agent.stop();
  const written = await ledger(databaseUrl, serverId);
  const { spool, lastBatchSeq } = agent.status();
  assert.equal(written.memoryRows, written.memoryTimes, "no batch was written twice");
  assert.equal(written.diskDuplicates, 0, "no disk row was written twice");
  assert.equal(written.diskWithoutMemory, 0, "no batch was half written");
  assert.equal(written.memoryRows, written.hwm, "every batch up to the mark was written, once");
  assert.equal(written.hwm + spool.batches, lastBatchSeq, "every numbered batch is written or still spooled");
  return { ...written, numbered: lastBatchSeq, leftInSpool: spool.batches };
}

function report(name: string, figures: Record<string, unknown>): void {
  console.log(`fault ${name}: ${JSON.stringify(figures)}`);
}

async function withOutput<T>(agent: InstalledAgent, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    console.error(`agent output:\n${agent.output}\ngateway output:\n${gateway.output}`);
    throw error;
  }
}

test("the gateway killed with SIGKILL mid-write: the batch it was writing is written once, on retry", async () => {
  const { agent, serverId } = await enrolledAgent("sigkill");
  const fill = fillSpool(agent.config, 300);
  await withOutput(agent, async () => {
    agent.start();
    await eventually("the replay to be under way", async () => (await ledger(databaseUrl, serverId)).hwm >= 20 || undefined);

    // Hold the memory table so the gateway's next batch stops inside its transaction, after the
    // agent's row is locked and its disk rows are written, at the write into memory (a COPY, or
    // the INSERT … unnest a group sends for tables of fewer rows).
    const blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    await blocker.query("BEGIN; LOCK TABLE memory IN SHARE MODE");
    const [copying] = await eventually("the gateway to be blocked mid-write", async () => {
      const rows = await query<{ pid: number; disk_locked: boolean }>(
        `SELECT a.pid, EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                               WHERE l.pid = a.pid AND c.relname = 'disk_io' AND l.mode = 'RowExclusiveLock') AS disk_locked
         FROM pg_stat_activity a
         WHERE (a.query ILIKE 'copy "memory"%' OR a.query ILIKE 'insert into "memory"%') AND a.wait_event_type = 'Lock'`,
      );
      return rows.length > 0 ? rows : undefined;
    });
    assert.ok(copying.disk_locked, "the killed transaction had already written its disk rows");
    const markBefore = (await ledger(databaseUrl, serverId)).hwm;
    await gateway.kill();
    await blocker.query("ROLLBACK");
    await blocker.end();
    await eventually(
      "the killed gateway's transaction to end",
      async () => (await query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [copying.pid])).length === 0 || undefined,
    );
    assert.equal((await ledger(databaseUrl, serverId)).hwm, markBefore, "nothing of the killed transaction was committed");

    const restarted = Date.now();
    await gateway.start();
    await delivered(agent, fill.lastSeq + 2, "the replay to finish after the restart");
    const recoveryMs = Date.now() - restarted;
    const figures = await assertExactlyOnce(agent, serverId);
    report("sigkill-mid-copy", { backlog: fill.batches, ...figures, recoveryMs });
  });
});

test("PostgreSQL crashed and restarted under load: every batch written once", async () => {
  const { agent, serverId } = await enrolledAgent("pg-restart");
  const fill = fillSpool(agent.config, 4000);
  await withOutput(agent, async () => {
    agent.start();
    // The backlog takes seconds to replay: the first rows seen, the database crashes mid-replay.
    await eventually("the replay to be under way", async () => (await ledger(databaseUrl, serverId)).hwm >= 1 || undefined);
    const restarted = Date.now();
    cluster.restartImmediately();
    const atRestart = (await ledger(databaseUrl, serverId)).hwm;
    assert.ok(atRestart < fill.lastSeq, "the database restarted while the replay was still writing");
    await delivered(agent, fill.lastSeq + 2, "the replay to finish after the restart");
    const recoveryMs = Date.now() - restarted;
    const figures = await assertExactlyOnce(agent, serverId);
    report("postgres-restart", { backlog: fill.batches, writtenBeforeRestart: atRestart, ...figures, recoveryMs });
  });
});

test("a day-long gateway outage, compressed: 8,640 batches of 10 s replayed, none lost, none twice", async () => {
  const { agent, serverId } = await enrolledAgent("outage");
  await gateway.stop();
  const fill = fillSpool(agent.config, 8640, 10);
  assert.equal(fill.droppedByBound, 0, "a day of batches fits the default spool bound");
  await withOutput(agent, async () => {
    agent.start(); // samples on top of the backlog while the gateway is still away
    await eventually("the agent to spool live batches too", () => (agent.status().lastBatchSeq > fill.lastSeq ? true : undefined));
    const restored = Date.now();
    await gateway.start();
    await delivered(agent, fill.lastSeq + 2, "the day to be replayed");
    const recoveryMs = Date.now() - restored;
    const figures = await assertExactlyOnce(agent, serverId);
    const [{ n }] = await query<{ n: string }>("SELECT count(*) AS n FROM memory WHERE server_id = $1 AND time > $2 AND time <= $3", [
      serverId,
      fill.from,
      fill.to,
    ]);
    assert.equal(Number(n), fill.batches, "every 10 s interval of the day is in the database once");
    report("day-outage", {
      backlog: fill.batches,
      spoolBytes: fill.spoolBytes,
      ...figures,
      recoveryMs,
      batchesPerSecond: Math.round(fill.batches / (recoveryMs / 1000)),
    });
  });
});

test("the spool's disk full: the agent keeps sampling, reports it, and loses nothing it numbered", {
  skip: !isRoot && "mounting a small filesystem needs root",
}, async () => {
  const { agent, serverId } = await enrolledAgent("disk-full");
  const disk = new SmallFilesystem(`${agent.stateDir}/spool`, 1 << 20);
  try {
    await withOutput(agent, async () => {
      agent.start();
      await eventually("the first batches delivered", () => ((agent.status().delivery.lastDeliveredSeq ?? 0) >= 2 ? true : undefined));
      await gateway.stop();
      disk.fill();
      const fullAt = agent.status().lastBatchSeq;
      const held = await eventually("the agent to report the full disk", () => {
        const { spool } = agent.status();
        return spool.heldBatches !== undefined && spool.heldBatches >= 3 && spool.writeError ? spool : undefined;
      });
      assert.match(held.writeError!, /no space left on device/i);
      assert.ok(agent.status().lastBatchSeq >= fullAt + 3, "the agent kept sampling");
      await gateway.start(); // delivers the spool, then what it holds in memory, disk still full
      await delivered(agent, agent.status().lastBatchSeq, "the held batches to be delivered with the disk still full");
      disk.free();
      const upTo = agent.status().lastBatchSeq;
      const numberedWhileFull = upTo - fullAt;
      await eventually("the spool to be written again", () => (agent.status().spool.heldBatches === 0 ? true : undefined));
      await delivered(agent, upTo + 1, "delivery to continue after the disk has room");
      const figures = await assertExactlyOnce(agent, serverId);
      const { spool } = agent.status();
      assert.equal(spool.droppedBatches, 0, "nothing was dropped: the full disk lasted less than the memory bound");
      report("spool-disk-full", { ...figures, numberedWhileFull, heldAtLeast: held.heldBatches, dropped: spool.droppedBatches });
    });
  } finally {
    await agent.stop();
    disk.unmount();
  }
});
