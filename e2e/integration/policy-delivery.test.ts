// A policy saved as the console saves it reaches the real agent over real OpAMP on loopback:
// worker (effective policy) → NOTIFY → gateway → WebSocket → agent, which applies it and
// reports APPLIED; a policy the agent cannot honour is refused with a clear message while the
// previous one stays in force; and after a restart with the gateway down the agent still runs
// the last policy it applied.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "../support/agent";
import { PolicyStack } from "../support/policy-stack";

const stack = new PolicyStack(56710, 56711);

interface PolicyInStatus {
  intervalSeconds: number;
  startedAt: string;
  stopped?: boolean;
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

test("a saved policy reaches the agent, which applies it and reports APPLIED", () =>
  explained(async () => {
    const { hash } = await stack.saveOrganisationDefault({ schemaVersion: 1, telemetry: { intervalSeconds: 3, ebpf: "auto" } });
    const row = await eventually("server_policy_status applied", async () => {
      const status = await stack.policyStatus();
      return status?.status === "applied" && status.applied_hash === hash ? status : undefined;
    }, 30_000);
    assert.equal(row.message, "");
    assert.ok(row.applied_at, "applied_at is set");
    const [effective] = await stack.query<{ hash: string }>("SELECT hash FROM server_effective_policies WHERE server_id = $1", [stack.serverId]);
    assert.equal(effective!.hash, hash, "the worker's hash is the one @spindle/policy computes");

    const status = await eventually("the agent's status to show the policy", () => {
      const s = agentStatus();
      return s.policy?.hash === hash && s.intervalSeconds === 3 ? s : undefined;
    }, 15_000);
    assert.equal(status.policy?.opampConnected, true);
    assert.equal(status.policy?.opampTransport, "websocket");
    const [agent] = await stack.query<{ interval: number; opamp: string[] }>(
      `SELECT (effective_config->'document'->'telemetry'->>'intervalSeconds')::int AS interval,
              ARRAY(SELECT jsonb_array_elements_text(capabilities->'opamp')) AS opamp FROM agents`);
    assert.equal(agent!.interval, 3, "the agent reported the policy as its effective config");
    assert.ok(agent!.opamp.includes("AcceptsRemoteConfig"));
    appliedHash = hash;
  }));

test("a policy this agent cannot honour is refused with a clear message, and the previous one stays", () =>
  explained(async () => {
    assert.ok(appliedHash, "needs the applied policy of the previous test");
    const { hash } = await stack.saveOrganisationDefault({ schemaVersion: 1, telemetry: { intervalSeconds: 5, ebpf: "on" } });
    const row = await eventually("server_policy_status failed", async () => {
      const status = await stack.policyStatus();
      return status?.status === "failed" && status.reported_hash === hash ? status : undefined;
    }, 30_000);
    assert.match(row.message, /telemetry\.ebpf is "on" but eBPF cannot be used on this server/);
    assert.match(row.message, /set it to "auto" to fall back to \/proc/);
    assert.equal(row.applied_hash, appliedHash, "the previous policy is still the one applied");

    // status.json is refreshed every tick.
    const status = await eventually("the refusal in the agent's status", () => {
      const s = agentStatus();
      return s.policy?.refused?.hash === hash ? s : undefined;
    }, 15_000);
    assert.equal(status.policy?.hash, appliedHash);
    assert.equal(status.intervalSeconds, 3, "the agent still samples at the previous policy's interval");
    const [agent] = await stack.query<{ interval: number }>(
      "SELECT (effective_config->'document'->'telemetry'->>'intervalSeconds')::int AS interval FROM agents");
    assert.equal(agent!.interval, 3, "its effective config is unchanged");
  }));

test("after a restart with the gateway down, the last known good policy is still in force", () =>
  explained(async () => {
    await stack.agent.stop();
    await stack.gateway.stop();
    const restartedAt = Date.now();
    stack.agent.start();
    const status = await eventually("the restarted agent's status", () => {
      const s = agentStatus();
      return !s.stopped && Date.parse(s.startedAt) >= restartedAt - 1000 ? s : undefined;
    }, 20_000);
    assert.equal(status.policy?.opampConnected, false, "no gateway to talk to");
    assert.equal(status.intervalSeconds, 3, "the restored policy's interval is in force");
    assert.equal(status.policy?.hash, appliedHash);
  }));
