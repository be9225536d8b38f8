// A policy saved as the console saves it reaches the real agent over real OpAMP on loopback:
// worker (effective policy) → NOTIFY → gateway → WebSocket → agent, which applies it and
// reports APPLIED; a policy the agent cannot honour is refused with a clear message while the
// previous one stays in force; a policy enabling the read cache and write optimisation runs
// them, and the batches carry their metrics; and after a restart with the gateway down the agent
// still runs the last policy it applied, features included.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { eventually } from "../support/agent";
import { PolicyStack } from "../support/policy-stack";
import { pointValue, readSpool, type SpooledBatch } from "../support/spool";

// Ports 56710 (PostgreSQL) and 56711 (gateway), or SPINDLE_POLICY_DELIVERY_PG_PORT and
// SPINDLE_POLICY_DELIVERY_GATEWAY_PORT where those are taken.
const stack = new PolicyStack(
  Number(process.env.SPINDLE_POLICY_DELIVERY_PG_PORT ?? 56710),
  Number(process.env.SPINDLE_POLICY_DELIVERY_GATEWAY_PORT ?? 56711),
);

interface PolicyInStatus {
  intervalSeconds: number;
  startedAt: string;
  lastBatchSeq: number;
  stopped?: boolean;
  capabilities: { name: string; available: boolean; reason?: string }[];
  policy?: { hash?: string; refused?: { hash: string; message: string }; opampConnected: boolean; opampTransport: string };
}
const agentStatus = () => stack.agent.status() as unknown as PolicyInStatus;

before(async () => {
  await stack.start();
});

after(async () => {
  await stack.destroy();
});

async function explained(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    console.error(stack.describe());
    throw error;
  }
}

let appliedHash = "";

type EffectiveConfig = { hash: string | null; interval: number | null; opamp: string[] };

/** The agent row's effective config: the document it reported, or the hash of the one it echoed. */
const effectiveConfig = () =>
  stack.query<EffectiveConfig>(
    `SELECT effective_config->>'hash' AS hash, (effective_config->'document'->'telemetry'->>'intervalSeconds')::int AS interval,
            ARRAY(SELECT jsonb_array_elements_text(capabilities->'opamp')) AS opamp FROM agents`,
  );

/**
 * The gateway stores an echo of the policy it pushed as that policy's hash, anything else as the
 * document (docs/agent-protocol.md, effective_config): either says the agent runs this policy.
 */
const reportsPolicy = (row: EffectiveConfig, hash: string, interval: number) => row.hash === hash || row.interval === interval;

test("a saved policy reaches the agent, which applies it and reports APPLIED", () =>
  explained(async () => {
    const { hash } = await stack.saveOrganisationDefault({ schemaVersion: 1, telemetry: { intervalSeconds: 3, ebpf: "auto" } });
    const row = await eventually(
      "server_policy_status applied",
      async () => {
        const status = await stack.policyStatus();
        return status?.status === "applied" && status.applied_hash === hash ? status : undefined;
      },
      30_000,
    );
    assert.equal(row.message, "");
    assert.ok(row.applied_at, "applied_at is set");
    const [effective] = await stack.query<{ hash: string }>("SELECT hash FROM server_effective_policies WHERE server_id = $1", [
      stack.serverId,
    ]);
    assert.equal(effective!.hash, hash, "the worker's hash is the one @spindle/policy computes");

    const status = await eventually(
      "the agent's status to show the policy",
      () => {
        const s = agentStatus();
        return s.policy?.hash === hash && s.intervalSeconds === 3 ? s : undefined;
      },
      15_000,
    );
    assert.equal(status.policy?.opampConnected, true);
    assert.equal(status.policy?.opampTransport, "websocket");
    // Agent rows are written with the gateway's 5 s heartbeat flush.
    const agent = await eventually(
      "the agent's effective config to be the policy",
      async () => {
        const [row] = await effectiveConfig();
        return row && reportsPolicy(row, hash, 3) ? row : undefined;
      },
      30_000,
    );
    assert.ok(agent.opamp.includes("AcceptsRemoteConfig"));
    appliedHash = hash;
  }));

test("a policy this agent cannot honour is refused with a clear message, and the previous one stays", () =>
  explained(async () => {
    assert.ok(appliedHash, "needs the applied policy of the previous test");
    const { hash } = await stack.saveOrganisationDefault({ schemaVersion: 1, telemetry: { intervalSeconds: 5, ebpf: "on" } });
    const row = await eventually(
      "server_policy_status failed",
      async () => {
        const status = await stack.policyStatus();
        return status?.status === "failed" && status.reported_hash === hash ? status : undefined;
      },
      30_000,
    );
    assert.match(row.message, /telemetry\.ebpf is "on" but eBPF cannot be used on this server/);
    assert.match(row.message, /set it to "auto" to fall back to \/proc/);
    assert.equal(row.applied_hash, appliedHash, "the previous policy is still the one applied");

    // status.json is refreshed every tick.
    const status = await eventually(
      "the refusal in the agent's status",
      () => {
        const s = agentStatus();
        return s.policy?.refused?.hash === hash ? s : undefined;
      },
      15_000,
    );
    assert.equal(status.policy?.hash, appliedHash);
    assert.equal(status.intervalSeconds, 3, "the agent still samples at the previous policy's interval");
    const [agent] = await effectiveConfig();
    assert.ok(agent && reportsPolicy(agent, appliedHash, 3), `its effective config is unchanged: ${JSON.stringify(agent)}`);
  }));

const MiB = 1 << 20;
const spoolDir = () => join(stack.agent.prefix, "var/lib/spindle/spool");
// The features' directories live inside the agent's private root, removed with it.
const hotDir = () => join(stack.agent.prefix, "data/hot");
const walFile = () => join(stack.agent.prefix, "data/grow/wal.log");

/** Grows the log in 64 KiB appends, as a database grows its WAL. */
async function growLog(bytes: number): Promise<void> {
  for (let written = 0; written < bytes; written += 64 * 1024) {
    appendFileSync(walFile(), Buffer.alloc(64 * 1024, "w"));
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Batches spooled after `afterSeq` carry the read cache's gauges and a preallocation. */
function carriesAccelMetrics(batches: SpooledBatch[], afterSeq = 0): SpooledBatch | undefined {
  const fresh = batches.filter((b) => b.seq > afterSeq);
  const preallocated = fresh.some((b) => (pointValue(b, "spindle.write_opt.preallocated") ?? 0) > 0);
  return preallocated
    ? fresh.find((b) => (pointValue(b, "spindle.read_cache.resident") ?? 0) > 0 && (pointValue(b, "spindle.read_cache.budget") ?? 0) > 0)
    : undefined;
}

test("a policy enabling the read cache and write optimisation is applied, and the batches carry their metrics", () =>
  explained(async () => {
    mkdirSync(hotDir(), { recursive: true });
    mkdirSync(join(walFile(), ".."), { recursive: true });
    for (const name of ["a.dat", "b.dat", "c.dat"]) writeFileSync(join(hotDir(), name), Buffer.alloc(MiB, name));
    const { hash } = await stack.saveOrganisationDefault({
      schemaVersion: 1,
      telemetry: { intervalSeconds: 3, ebpf: "auto" },
      readCache: {
        enabled: true,
        include: [hotDir()],
        budgetBytes: 64 * MiB,
        freeMemoryFloorBytes: 64 * MiB,
        scanResistanceThresholdBytes: 16 * MiB,
      },
      writeOptimization: { enabled: true, preallocation: [{ pattern: join(walFile(), "../*.log"), chunkBytes: MiB }] },
    });
    await eventually(
      "server_policy_status applied",
      async () => {
        const status = await stack.policyStatus();
        return status?.status === "applied" && status.applied_hash === hash ? status : undefined;
      },
      30_000,
    );
    const status = await eventually(
      "the agent's status to show the policy",
      () => {
        const s = agentStatus();
        return s.policy?.hash === hash ? s : undefined;
      },
      15_000,
    );
    for (const name of ["accel.read_cache", "accel.write_optimization"]) {
      assert.ok(
        status.capabilities.find((c) => c.name === name)?.available,
        `${name} is available: ${JSON.stringify(status.capabilities)}`,
      );
    }

    // The gateway accepts these metrics without storing them yet: hold delivery to read the spool.
    await stack.gateway.stop();
    await growLog(2 * MiB);
    const batch = await eventually(
      "spooled batches with the read cache's and write optimisation's metrics",
      () => carriesAccelMetrics(readSpool(spoolDir())),
      30_000,
    );
    assert.equal(pointValue(batch, "spindle.read_cache.managed_files"), 3);
    assert.equal(statSync(walFile()).size, 2 * MiB, "preallocation keeps the file's size");
    await stack.gateway.start();
    appliedHash = hash;
  }));

test("after a restart with the gateway down, the last known good policy is still in force", () =>
  explained(async () => {
    await stack.agent.stop();
    await stack.gateway.stop();
    const seqBeforeRestart = agentStatus().lastBatchSeq;
    const restartedAt = Date.now();
    stack.agent.start();
    const status = await eventually(
      "the restarted agent's status",
      () => {
        const s = agentStatus();
        return !s.stopped && Date.parse(s.startedAt) >= restartedAt - 1000 ? s : undefined;
      },
      20_000,
    );
    assert.equal(status.policy?.opampConnected, false, "no gateway to talk to");
    assert.equal(status.intervalSeconds, 3, "the restored policy's interval is in force");
    assert.equal(status.policy?.hash, appliedHash);
    // The restored policy's features run again: past what was reserved before, the log gets more.
    await growLog(3 * MiB);
    await eventually(
      "the features' metrics in batches spooled after the restart",
      () => carriesAccelMetrics(readSpool(spoolDir()), seqBeforeRestart),
      30_000,
    );
  }));
