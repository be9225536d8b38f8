// Agent upgrades end to end, every part real: three builds of the agent (0.1.0, 0.1.1 and a
// broken 0.1.2 whose `run` exits at start) served by the real gateway as releases, the agent
// installed by install.sh and running detached with a pid file (as without systemd), the real
// worker driving the rollouts. Upgrades are started with the SQL the console's operation runs
// (apps/console/modules/agent-upgrades/lib/start-upgrade.ts, tested there against the database).
//  1. A tampered download is refused before anything runs: the binary altered in transit (its
//     SHA-256 is not the signed one), then the binary and SHA256SUMS replaced together (the
//     gateway's Ed25519 signature over SHA256SUMS does not verify); the agent keeps running 0.1.0
//     and the rollout pauses.
//  2. 0.1.0 → 0.1.1 over OpAMP: the agent verifies, swaps its binary, its watchdog restarts it
//     detached (new pid in the pid file), and 0.1.1 connects and reports installed.
//  3. 0.1.1 → the broken 0.1.2: it exits at start, the watchdog puts 0.1.1 back and starts it,
//     0.1.1 reports the rollback, and the rollout pauses at that wave.
// Ports 56740 (PostgreSQL), 56741 (gateway) and 56742 (the tampering mirror), or
// SPINDLE_UPGRADE_PG_PORT, SPINDLE_UPGRADE_GATEWAY_PORT and SPINDLE_UPGRADE_MIRROR_PORT.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pg from "pg";
import { InstalledAgent, eventually } from "../support/agent";
import { buildReleases } from "../support/agent-releases";
import { DetachedAgent } from "../support/detached-agent";
import { GatewayProcess } from "../support/gateway";
import { PostgresCluster } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";
import { TamperingMirror } from "../support/tampering-mirror";
import { WorkerProcess } from "../support/worker";

const pgPort = Number(process.env.SPINDLE_UPGRADE_PG_PORT ?? 56740);
const gatewayPort = Number(process.env.SPINDLE_UPGRADE_GATEWAY_PORT ?? 56741);
const mirrorPort = Number(process.env.SPINDLE_UPGRADE_MIRROR_PORT ?? 56742);

const cluster = new PostgresCluster(pgPort);
const databaseUrl = cluster.url("spindle");
const mirror = new TamperingMirror(mirrorPort, `http://127.0.0.1:${gatewayPort}`);
const agent = new InstalledAgent();
const detached = new DetachedAgent(agent);
let gateway: GatewayProcess;
let worker: WorkerProcess;
let db: pg.Pool;
let orgId = "";
let serverId = "";

before(async () => {
  const releases = buildReleases([{ version: "0.1.0", top: true }, { version: "0.1.1" }, { version: "0.1.2", broken: true }]);
  cluster.start();
  cluster.createMigratedDatabase();
  db = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  const client = await db.connect();
  const seeded = await seedOrganisationWithToken(client as unknown as pg.Client, "agent-upgrades");
  client.release();
  orgId = seeded.orgId;
  // Offers name the mirror as the download address (SPINDLE_PUBLIC_URL), as a fleet behind a CDN would.
  gateway = new GatewayProcess(gatewayPort, databaseUrl, { SPINDLE_AGENT_DIST_DIR: releases.dir, SPINDLE_PUBLIC_URL: mirror.url });
  await gateway.start();
  await mirror.start();
  worker = new WorkerProcess(databaseUrl, { SPINDLE_UPGRADE_INTERVAL_SECONDS: "1" });
  worker.start();
  // Asynchronously: install.sh downloads the agent through the mirror, which this process serves.
  await agent.installAsync(InstalledAgent.oneLiner(gateway.url, seeded.token));
  agent.setInterval(2);
  detached.configureUpgrades(60);
  detached.start();
  [{ id: serverId }] = (await db.query<{ id: string }>("SELECT id::text FROM servers")).rows as [{ id: string }];
});

after(async () => {
  await detached.stop();
  await worker?.stop();
  await gateway?.stop();
  await mirror.stop();
  await db?.end();
  cluster.destroy();
  await agent.destroy();
});

async function explained(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    console.error(`agent log:\n${detached.log()}\ngateway output:\n${gateway.output}\nworker output:\n${worker.output}`);
    throw error;
  }
}

/** What start-upgrade.ts writes for a one-server upgrade: the rollout and its canary, offered. */
async function startUpgrade(version: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO agent_upgrade_rollouts (org_id, target_version, scope, plan, wave_count, created_by)
     VALUES ($1, $2, $3, '{"canary":1,"wavePercents":[100],"soakMinutes":0,"answerTimeoutMinutes":15}', 1, NULL) RETURNING id::text`,
    [orgId, version, JSON.stringify({ kind: "servers", serverIds: [serverId] })],
  );
  await db.query(
    `INSERT INTO agent_upgrades (org_id, server_id, rollout_id, wave, target_version, from_version, state, offered_at)
     SELECT org_id, id, $2, 0, $3, agent_version, 'offered', now() FROM servers WHERE id = $1`,
    [serverId, rows[0]!.id, version],
  );
  return rows[0]!.id;
}

/** What control-upgrade.ts does to cancel. */
async function cancelUpgrade(rolloutId: string): Promise<void> {
  await db.query(
    `UPDATE agent_upgrades SET state = 'cancelled', finished_at = now() WHERE rollout_id = $1 AND state IN ('waiting', 'offered')`,
    [rolloutId],
  );
  await db.query(`UPDATE agent_upgrade_rollouts SET status = 'cancelled', finished_at = now() WHERE id = $1`, [rolloutId]);
}

interface Outcome {
  state: string;
  message: string;
  status: string;
  reason: string;
}

async function outcome(rolloutId: string, done: (o: Outcome) => boolean): Promise<Outcome> {
  return eventually(
    `upgrade ${rolloutId} to finish`,
    async () => {
      const { rows } = await db.query<Outcome>(
        `SELECT u.state, u.message, r.status, r.status_reason AS reason FROM agent_upgrades u JOIN agent_upgrade_rollouts r ON r.id = u.rollout_id
       WHERE u.rollout_id = $1`,
        [rolloutId],
      );
      return rows[0] && done(rows[0]) ? rows[0] : undefined;
    },
    180_000,
  );
}

const serverVersion = async () =>
  (await db.query<{ v: string }>("SELECT agent_version AS v FROM servers WHERE id = $1", [serverId])).rows[0]!.v;
const downloads = () => {
  const dir = join(agent.stateDir, "upgrade/download");
  return existsSync(dir) ? readdirSync(dir) : [];
};

test("the agent says it takes upgrades over OpAMP, detached with a pid file", () =>
  explained(async () => {
    await eventually("the agent's report of itself", async () => {
      const { rows } = await db.query(`SELECT s.agent_version, a.capabilities->'upgrade' AS upgrade, a.capabilities->'opamp' AS opamp
      FROM servers s JOIN agents a ON a.server_id = s.id`);
      const row = rows[0];
      return row?.agent_version === "0.1.0" && row.upgrade?.remote === true && row.opamp?.includes("AcceptsPackages") ? row : undefined;
    });
    const { rows } = await db.query("SELECT version FROM agent_releases ORDER BY version");
    assert.deepEqual(
      rows.map((r) => r.version),
      ["0.1.0", "0.1.1", "0.1.2"],
      "the gateway records the releases it serves",
    );
  }));

test("a tampered download is refused before it can run, and the upgrade stops", () =>
  explained(async () => {
    const pid = detached.pid()!;
    for (const [mode, refusal] of [
      ["binary", /has SHA-256 [0-9a-f]{64}, the signed SHA256SUMS says [0-9a-f]{64}: the download was altered or corrupted/],
      ["binary-and-sums", /the gateway's signature over SHA256SUMS of 0\.1\.1 does not verify with the key pinned at enrolment/],
    ] as const) {
      mirror.mode = mode;
      const rollout = await startUpgrade("0.1.1");
      const refused = await outcome(rollout, (o) => o.state === "failed" && o.status === "paused");
      assert.match(refused.message, refusal);
      assert.match(refused.reason, /could not upgrade to 0\.1\.1: upgrade refused/);
      assert.equal(detached.version(), "spindle-agent 0.1.0", "the installed binary is untouched");
      assert.equal(detached.pid(), pid, "the agent was not restarted");
      assert.ok(detached.running(pid), "the agent keeps running");
      assert.deepEqual(downloads(), [], "the refused download was deleted");
      await cancelUpgrade(rollout);
    }
    assert.ok(
      mirror.requests.some((path) => path === "/download/0.1.1/SHA256SUMS"),
      "the downloads went through the mirror",
    );
    mirror.mode = "none";
  }));

test("0.1.0 → 0.1.1: verified, swapped, restarted detached, and reported installed", () =>
  explained(async () => {
    const before = detached.pid()!;
    const rollout = await startUpgrade("0.1.1");
    const done = await outcome(rollout, (o) => o.state === "installed" && o.status === "completed");
    assert.equal(done.message, "");
    assert.equal(detached.version(), "spindle-agent 0.1.1");
    const after = detached.pid()!;
    assert.notEqual(after, before, "the watchdog wrote the new agent's pid to the pid file");
    assert.ok(detached.running(after) && !detached.running(before));
    assert.equal(
      await eventually("the server's version", async () => ((await serverVersion()) === "0.1.1" ? "0.1.1" : undefined)),
      "0.1.1",
    );
    const previous = readFileSync(join(agent.stateDir, "upgrade/previous/spindle-agent"));
    assert.ok(previous.includes(Buffer.from("0.1.0")), "the previous binary is kept");
    assert.match(detached.log(), /upgrade watchdog: the new agent is healthy/);
  }));

test("0.1.1 → a 0.1.2 that exits at start is rolled back to 0.1.1, and the upgrade stops", () =>
  explained(async () => {
    const rollout = await startUpgrade("0.1.2");
    const rolledBack = await outcome(rollout, (o) => o.state === "rolled_back" && o.status === "paused");
    assert.match(rolledBack.message, /^rolled back to 0\.1\.1: 0\.1\.2 stopped before it reported healthy \(exit status 1\)$/);
    assert.match(rolledBack.reason, /rolled back from 0\.1\.2/);
    assert.equal(detached.version(), "spindle-agent 0.1.1", "0.1.1 is back in place");
    const pid = detached.pid()!;
    assert.ok(detached.running(pid), "0.1.1 runs again, from the pid file");
    assert.match(detached.log(), /this build exits at start/);
    // Back online on 0.1.1: the gateway hears from it again after the rollback.
    const {
      rows: [mark],
    } = await db.query<{ at: Date }>("SELECT now() AS at");
    await eventually("the restored agent to report", async () => {
      const { rows } = await db.query("SELECT agent_version, last_seen_at > $2 AS seen FROM servers WHERE id = $1", [serverId, mark!.at]);
      return rows[0]?.seen && rows[0].agent_version === "0.1.1" ? true : undefined;
    });
    // The rollout offers nothing more: the worker left it paused, and the attempt is finished.
    const { rows: live } = await db.query(
      "SELECT count(*)::int AS n FROM agent_upgrades WHERE state IN ('offered', 'downloading', 'installing')",
    );
    assert.equal(live[0]!.n, 0);
  }));
