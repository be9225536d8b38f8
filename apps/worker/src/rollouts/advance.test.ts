// The rollout driver against a real PostgreSQL, as the worker's login: a harmless change goes
// through every wave, each wave only to its servers; a regression in the canary's telemetry rolls
// every released server back and pauses; a FAILED does too; too little data holds; and steps
// run concurrently never release a wave twice. Agents are stood in for by writing what the
// gateway writes (server_policy_status); time is the step's `now`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import {
  agentsReport,
  createRolloutFixture,
  effectiveHash,
  heartbeat,
  insertReadCache,
  type RolloutFixture,
} from "../test-support/rollouts.js";
import { stepOneRollout } from "./task.js";
import { evaluateOrganization } from "../alerts/evaluate.js";
import type { AlertTransitionGroup } from "@spindle/domain";

const settings = { settleSeconds: 30 };
const minute = 60_000;
const plan = { canary: { kind: "spread" as const, count: 1 }, wavePercents: [50, 100], guardWindowMinutes: 5 };

describe("the rollout driver", { skip: skipReason }, () => {
  let database: PlainDatabase;
  before(async () => {
    database = await openPlainDatabase("rollouts_advance");
  });
  after(async () => {
    await database?.close();
  });

  const step = (f: RolloutFixture, now: Date) => stepOneRollout(database.workerPool, f.orgId, f.rolloutId, settings, now);
  const query = async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    (await database.pool.query<T>(sql, params)).rows;
  const waveStates = async (f: RolloutFixture) =>
    (await query<{ state: string }>("SELECT state FROM rollout_waves WHERE rollout_id = $1 ORDER BY wave", [f.rolloutId])).map(
      (r) => r.state,
    );
  const waveServers = async (f: RolloutFixture, wave: number) =>
    (
      await query<{ server_id: string }>("SELECT server_id::text FROM rollout_servers WHERE rollout_id = $1 AND wave = $2", [
        f.rolloutId,
        wave,
      ])
    ).map((r) => r.server_id);
  const status = async (f: RolloutFixture) =>
    (await query<{ status: string; status_reason: string }>("SELECT status, status_reason FROM rollouts WHERE id = $1", [f.rolloutId]))[0]!;
  const ratios = (f: RolloutFixture, ratio: number, overrides: Record<string, number> = {}) =>
    new Map([...f.tagged, ...f.untagged].map((id) => [id, overrides[id] ?? ratio]));

  /** Releases a wave, lets its agents confirm, and returns when its guard window started. */
  async function releaseAndApply(f: RolloutFixture, wave: number, at: Date): Promise<Date> {
    const ids = await waveServers(f, wave);
    await heartbeat(database.pool, f.orgId, at);
    const appliedAt = new Date(at.getTime() + 2000);
    await agentsReport(database.pool, ids, appliedAt);
    await heartbeat(database.pool, f.orgId, new Date(at.getTime() + 3000));
    assert.deepEqual(await step(f, new Date(at.getTime() + 3000)), [
      `confirmed ${ids.length} applied, 0 failed, 0 rolled back`,
      `watching wave ${wave}`,
    ]);
    return appliedAt;
  }

  it("takes a harmless change through every wave, each only to its own servers, then lets the slot go", async () => {
    const f = await createRolloutFixture(database.pool, "org-harmless", plan);
    const t0 = new Date(Date.now() - 60 * minute);
    await insertReadCache(
      database.pool,
      f.orgId,
      ratios(f, 0.05),
      new Date(t0.getTime() - 10 * minute),
      new Date(t0.getTime() + 30 * minute),
    );
    const before = await effectiveHash(database.pool, f.tagged[0]!);
    assert.deepEqual(await waveStates(f), ["pending", "pending", "pending"]);

    await heartbeat(database.pool, f.orgId, t0);
    assert.deepEqual(await step(f, t0), ["released wave 0"]);
    const canary = await waveServers(f, 0);
    const after = await effectiveHash(database.pool, canary[0]!);
    assert.notEqual(after, before, "the canary runs the new version");
    for (const id of [...f.tagged.filter((id) => !canary.includes(id))])
      assert.equal(await effectiveHash(database.pool, id), before, "the others keep the old");
    assert.equal(
      (await query<{ target_hash: string }>("SELECT target_hash FROM rollout_servers WHERE server_id = $1", [canary[0]]))[0]!.target_hash,
      after,
    );

    let at = t0;
    for (const wave of [0, 1, 2]) {
      const appliedAt = await releaseAndApply(f, wave, at);
      // Within the window nothing moves; after it (and the settle time) the wave passes and the next goes out.
      at = new Date(appliedAt.getTime() + 4 * minute);
      await heartbeat(database.pool, f.orgId, at);
      assert.deepEqual(await step(f, at), []);
      at = new Date(appliedAt.getTime() + 5 * minute + 31_000);
      await heartbeat(database.pool, f.orgId, at);
      assert.deepEqual(await step(f, at), wave < 2 ? [`passed wave ${wave}`, `released wave ${wave + 1}`] : ["passed wave 2", "completed"]);
    }
    assert.equal((await status(f)).status, "completed");
    for (const id of f.tagged) assert.equal(await effectiveHash(database.pool, id), after, "every tagged server runs the new version");
    const readings = (
      await query<{ readings: { guard: string; status: string }[] }>(
        "SELECT readings FROM rollout_waves WHERE rollout_id = $1 AND wave = 0",
        [f.rolloutId],
      )
    )[0]!.readings;
    assert.equal(readings.find((r) => r.guard === "comparative")?.status, "pass");
    const events = (await query<{ kind: string }>("SELECT kind FROM rollout_events WHERE rollout_id = $1 ORDER BY id", [f.rolloutId])).map(
      (r) => r.kind,
    );
    assert.deepEqual(events, [
      "wave.released",
      "wave.applied",
      "wave.passed",
      "wave.released",
      "wave.applied",
      "wave.passed",
      "wave.released",
      "wave.applied",
      "wave.passed",
      "rollout.completed",
    ]);
    assert.deepEqual(await query("SELECT action FROM audit_log WHERE org_id = $1", [f.orgId]), [{ action: "rollout.completed" }]);
  });

  it("rolls every released server back when the canary's miss ratio rises against the servers not yet changed", async () => {
    const f = await createRolloutFixture(database.pool, "org-regression", plan);
    const t0 = new Date(Date.now() - 60 * minute);
    await heartbeat(database.pool, f.orgId, t0);
    await step(f, t0);
    const [canary] = await waveServers(f, 0);
    const before = (await query<{ before_hash: string }>("SELECT before_hash FROM rollout_servers WHERE server_id = $1", [canary]))[0]!
      .before_hash;
    const appliedAt = await releaseAndApply(f, 0, t0);
    await insertReadCache(database.pool, f.orgId, ratios(f, 0.05), new Date(t0.getTime() - 10 * minute), appliedAt);
    await insertReadCache(
      database.pool,
      f.orgId,
      ratios(f, 0.05, { [canary!]: 0.6 }),
      appliedAt,
      new Date(appliedAt.getTime() + 6 * minute),
    );

    const at = new Date(appliedAt.getTime() + 5 * minute + 31_000);
    await heartbeat(database.pool, f.orgId, at);
    assert.deepEqual(await step(f, at), ["rolled back: comparative"]);
    const { status: state, status_reason } = await status(f);
    assert.equal(state, "paused");
    assert.match(status_reason, /^Rolled back: Worse than the servers not yet changed: Read-cache miss ratio \(managed files\) \+/);
    assert.equal(await effectiveHash(database.pool, canary!), before, "the canary is back on the policy it had");
    assert.deepEqual(await waveStates(f), ["rolled_back", "pending", "pending"]);
    const [marked] = await query<{ kind: string; details: { hash: string; reason: string } }>(
      "SELECT kind, details FROM server_events WHERE server_id = $1 AND kind = 'policy.rolled_back'",
      [canary],
    );
    assert.equal(marked!.details.hash, before);
    assert.match(marked!.details.reason, /Read-cache miss ratio/);

    // The default rule fires through the organisation's rules and channels (the hook is the outbox in production).
    const groups: AlertTransitionGroup[] = [];
    await evaluateOrganization(database.pool, f.orgId, new Date(at.getTime() + 1000), async (_tx, group) => void groups.push(group));
    const fired = groups.find((g) => g.signal === "policy.rolled_back");
    assert.deepEqual(
      fired?.transitions.map((t) => [t.serverId, t.to]),
      [[canary, "firing"]],
    );

    // Paused: nothing is released, and the agent's confirmation of the old policy is recorded.
    await agentsReport(database.pool, [canary!], new Date(at.getTime() + 2000));
    assert.deepEqual(await step(f, new Date(at.getTime() + 3000)), ["confirmed 0 applied, 0 failed, 1 rolled back"]);
    assert.deepEqual(await step(f, new Date(at.getTime() + 20 * minute)), []);
    assert.deepEqual(await waveServers(f, 1).then((ids) => Promise.all(ids.map((id) => effectiveHash(database.pool, id)))), [
      before,
      before,
    ]);
  });

  it("rolls back at once when an agent refuses the policy", async () => {
    const f = await createRolloutFixture(database.pool, "org-failed", plan);
    const t0 = new Date();
    await heartbeat(database.pool, f.orgId, t0);
    await step(f, t0);
    const [canary] = await waveServers(f, 0);
    await agentsReport(database.pool, [canary!], new Date(t0.getTime() + 1000), {
      failed: "the agent refused the policy, the previous one stays in force: read cache: pin too large",
    });
    const actions = await step(f, new Date(t0.getTime() + 2000));
    assert.deepEqual(actions, ["confirmed 0 applied, 1 failed, 0 rolled back", "rolled back: failed"]);
    assert.match((await status(f)).status_reason, /1 server refused the policy \(FAILED\): db-\d: the agent refused the policy/);
    const [wave] = await query<{ readings: { guard: string; status: string }[] }>(
      "SELECT readings FROM rollout_waves WHERE rollout_id = $1 AND wave = 0",
      [f.rolloutId],
    );
    assert.equal(wave!.readings.find((r) => r.guard === "failed")?.status, "trip", "the page shows the reading that tripped");
  });

  it("holds a wave without enough data, and says why", async () => {
    const f = await createRolloutFixture(database.pool, "org-quiet", plan);
    const t0 = new Date(Date.now() - 30 * minute);
    await heartbeat(database.pool, f.orgId, t0);
    await step(f, t0);
    const appliedAt = await releaseAndApply(f, 0, t0);
    const at = new Date(appliedAt.getTime() + 5 * minute + 31_000);
    await heartbeat(database.pool, f.orgId, at);
    assert.deepEqual(await step(f, at), ["holding wave 0"]);
    const [wave] = await query<{ state: string; hold_reason: string }>(
      "SELECT state, hold_reason FROM rollout_waves WHERE rollout_id = $1 AND wave = 0",
      [f.rolloutId],
    );
    assert.equal(wave!.state, "holding");
    assert.match(wave!.hold_reason, /^Not enough data: no metric could be compared with the servers not yet changed/);
    // Re-read at most once a minute, and still holding while nothing arrives.
    assert.deepEqual(await step(f, new Date(at.getTime() + 10_000)), []);
    assert.deepEqual(await step(f, new Date(at.getTime() + 61_000)), ["holding wave 0"]);
    assert.equal((await query("SELECT 1 FROM rollout_events WHERE rollout_id = $1 AND kind = 'wave.held'", [f.rolloutId])).length, 1);
  });

  it("releases each wave once however many steps run at the same moment", async () => {
    const f = await createRolloutFixture(database.pool, "org-race", plan);
    const t0 = new Date();
    await heartbeat(database.pool, f.orgId, t0);
    const results = await Promise.all(Array.from({ length: 6 }, () => stepOneRollout(database.pool, f.orgId, f.rolloutId, settings, t0)));
    assert.equal(results.filter((actions) => actions.includes("released wave 0")).length, 1, JSON.stringify(results));
    assert.equal((await query("SELECT 1 FROM rollout_events WHERE rollout_id = $1 AND kind = 'wave.released'", [f.rolloutId])).length, 1);
  });
});
