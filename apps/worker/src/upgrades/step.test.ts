// Agent upgrade rollouts on real PostgreSQL, advanced as the worker's login runs them: a wave
// offered once the one before has installed, soaked and passed the staged rollouts' measured
// guards (its servers against the servers not yet upgraded, on the read cache's telemetry),
// completion after the last; a pause naming the guard and its interval on a regression, a hold
// with its reason while the guards lack data; a pause with the server and its message when one
// rolled back, failed, fell silent or went offline; each decision audited, and another
// organisation's rollout never touched.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { insertReadCache } from "../test-support/rollouts.js";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { advanceUpgradeRollouts } from "./task.js";

const minute = 60_000;
/** Six servers per organisation: a rollout's waves take the first ones, the others stay on 0.1.0 (controls). */
const servers = (org: string) => [1, 2, 3, 4, 5, 6].map((i) => `0195f3c2-7a8b-7c3d-9e4f-${org === "org-a" ? "a" : "b"}0000000000${i}`);
const settings = { settleSeconds: 30 };

describe("agent upgrade rollouts", { skip: skipReason }, () => {
  let db: PlainDatabase;
  const t0 = new Date("2026-11-28T12:00:00Z").getTime();

  before(async () => {
    db = await openPlainDatabase("agent_upgrades");
    for (const org of ["org-a", "org-b"]) {
      await db.pool.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)", [org]);
      for (const [i, id] of servers(org).entries()) {
        await db.pool.query(
          "INSERT INTO servers (id, org_id, machine_id, hostname, os, agent_version, last_seen_at) VALUES ($1, $2, $3, $4, 'linux', '0.1.0', $5)",
          [id, org, `m-${id}`, `${org}-db-0${i + 1}`, new Date(t0)],
        );
      }
    }
  });
  after(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.pool.query(
      "DELETE FROM agent_upgrade_rollouts; DELETE FROM audit_log; DELETE FROM agent_upgrades; DELETE FROM read_cache; UPDATE servers SET agent_version = '0.1.0'",
    );
  });

  /** A rollout as the console starts it: wave 0 offered, the others waiting. */
  async function startRollout(org: string, waves: number[][], soakMinutes = 5): Promise<string> {
    const ids = servers(org);
    const { rows } = await db.pool.query(
      `INSERT INTO agent_upgrade_rollouts (org_id, target_version, scope, plan, wave_count, created_at)
       VALUES ($1, '0.1.1', '{"kind":"organization"}', $2, $3, $4) RETURNING id`,
      [org, JSON.stringify({ canary: 1, wavePercents: [100], soakMinutes, answerTimeoutMinutes: 15 }), waves.length, new Date(t0)],
    );
    const id = rows[0].id as string;
    for (const [wave, members] of waves.entries()) {
      for (const i of members) {
        await db.pool.query(
          `INSERT INTO agent_upgrades (org_id, server_id, rollout_id, wave, target_version, from_version, state, offered_at)
           VALUES ($1, $2, $3, $4, '0.1.1', '0.1.0', $5, $6)`,
          [org, ids[i], id, wave, wave === 0 ? "offered" : "waiting", wave === 0 ? new Date(t0) : null],
        );
      }
    }
    return id;
  }

  /** What the gateway records when an agent reports it installed (and its description, the version). */
  async function installed(org: string, i: number, at: number): Promise<void> {
    const id = servers(org)[i];
    await db.pool.query(
      "UPDATE agent_upgrades SET state = 'installed', reported_at = $2, finished_at = $2 WHERE server_id = $1 AND state IN ('offered', 'downloading', 'installing')",
      [id, new Date(at)],
    );
    await db.pool.query("UPDATE servers SET agent_version = '0.1.1', last_seen_at = $2 WHERE id = $1", [id, new Date(at)]);
  }

  const step = async (at: number) =>
    (await advanceUpgradeRollouts(db.workerPool, new Date(at), settings)).outcomes.map((o) => o.outcome.kind);
  /** The read cache's miss ratio each server reports every 10 s over [from, to) (test-support/rollouts.ts). */
  const readCache = (org: string, ratio: number, from: number, to: number, only = servers(org)) =>
    insertReadCache(db.pool, org, new Map(only.map((id) => [id, ratio])), new Date(from), new Date(to));
  /** Every server of the organisation is heard from at `at` (a live agent's heartbeat). */
  const heartbeat = (org: string, at: number) =>
    db.pool.query("UPDATE servers SET last_seen_at = $2 WHERE org_id = $1", [org, new Date(at)]);
  const guardRow = async (rollout: string, wave: number) =>
    (
      await db.pool.query("SELECT verdict, reason, readings, overridden_at FROM agent_upgrade_waves WHERE rollout_id = $1 AND wave = $2", [
        rollout,
        wave,
      ])
    ).rows[0] as { verdict: string; reason: string; readings: { guard: string; status: string }[]; overridden_at: Date | null } | undefined;
  const states = async (rollout: string) =>
    (await db.pool.query("SELECT wave, state FROM agent_upgrades WHERE rollout_id = $1 ORDER BY wave, server_id", [rollout])).rows.map(
      (r) => `${r.wave}:${r.state}`,
    );
  const actions = async (org: string) =>
    (await db.pool.query("SELECT action FROM audit_log WHERE org_id = $1 ORDER BY id", [org])).rows.map((r) => r.action as string);

  it("offers each wave after the one before installed, soaked and passed its guards, then completes", async () => {
    const rollout = await startRollout("org-a", [[0], [1, 2]]);
    await readCache("org-a", 0.05, t0 - 30 * minute, t0 + 30 * minute);
    assert.deepEqual(await step(t0 + minute), ["watching"]);
    await installed("org-a", 0, t0 + 2 * minute);
    assert.deepEqual(await step(t0 + 2 * minute), ["wave-installed"]);
    // Soaking: the canary must stay connected on the new version for five minutes.
    await heartbeat("org-a", t0 + 6 * minute);
    assert.deepEqual(await step(t0 + 6 * minute), ["soaking"]);
    // The soak is over; its last seconds of telemetry settle before the guards read it.
    await heartbeat("org-a", t0 + 7 * minute);
    assert.deepEqual(await step(t0 + 7 * minute), ["soaking"]);
    assert.deepEqual(await states(rollout), ["0:installed", "1:waiting", "1:waiting"]);
    assert.equal(await guardRow(rollout, 0), undefined, "no reading before the window settled");
    await heartbeat("org-a", t0 + 7.5 * minute);
    assert.deepEqual(await step(t0 + 7.5 * minute), ["wave-offered"]);
    assert.deepEqual(await states(rollout), ["0:installed", "1:offered", "1:offered"]);
    const passed = await guardRow(rollout, 0);
    assert.equal(passed?.verdict, "pass");
    assert.deepEqual(
      passed?.readings.map((r) => [r.guard, r.status]),
      [
        ["p99_read_latency", "not-measured"],
        ["p99_write_latency", "not-measured"],
        ["comparative", "pass"],
      ],
    );
    await installed("org-a", 1, t0 + 8 * minute);
    await installed("org-a", 2, t0 + 8 * minute);
    assert.deepEqual(await step(t0 + 8 * minute), ["wave-installed"]);
    await heartbeat("org-a", t0 + 13 * minute);
    // The last wave completes after its soak: no wave is left to protect.
    assert.deepEqual(await step(t0 + 13 * minute), ["completed"]);
    const { rows } = await db.pool.query("SELECT status, finished_at FROM agent_upgrade_rollouts WHERE id = $1", [rollout]);
    assert.equal(rows[0].status, "completed");
    assert.deepEqual(await actions("org-a"), [
      "agent_upgrade.wave_installed",
      "agent_upgrade.wave_passed",
      "agent_upgrade.wave_offered",
      "agent_upgrade.wave_installed",
      "agent_upgrade.completed",
    ]);
    const audited = await db.pool.query("SELECT details FROM audit_log WHERE org_id = 'org-a' AND action = 'agent_upgrade.wave_passed'");
    assert.equal(audited.rows[0].details.guards.find((g: { guard: string }) => g.guard === "comparative").status, "pass");
    assert.deepEqual(await step(t0 + 14 * minute), [], "a completed rollout is not advanced again");
  });

  it("pauses on a regression against the servers not yet upgraded, naming the guard and its interval", async () => {
    const rollout = await startRollout("org-a", [[0], [1, 2]]);
    const [canary, ...others] = servers("org-a");
    await readCache("org-a", 0.05, t0 - 30 * minute, t0 + 30 * minute, others);
    // The canary's read cache misses ten times as often once it runs the new agent.
    await readCache("org-a", 0.05, t0 - 30 * minute, t0, [canary!]);
    await readCache("org-a", 0.5, t0, t0 + 30 * minute, [canary!]);
    await installed("org-a", 0, t0 + 2 * minute);
    assert.deepEqual(await step(t0 + 2 * minute), ["wave-installed"]);
    await heartbeat("org-a", t0 + 7.5 * minute);
    assert.deepEqual(await step(t0 + 7.5 * minute), ["paused"]);
    const { rows } = await db.pool.query("SELECT status, status_reason FROM agent_upgrade_rollouts WHERE id = $1", [rollout]);
    assert.equal(rows[0].status, "paused");
    assert.match(
      rows[0].status_reason,
      /^A guard tripped after 5 min on the new version: Against servers not yet changed: Worse than the servers not yet changed: Read-cache miss ratio \(managed files\) \+[0-9.]+ %\. Read-cache miss ratio \(managed files\): \+[0-9.]+ % \(95 % interval \+[0-9.]+ % to \+[0-9.]+ %\) against /,
    );
    assert.deepEqual(await states(rollout), ["0:installed", "1:waiting", "1:waiting"], "the next wave is not offered");
    assert.equal((await guardRow(rollout, 0))?.verdict, "trip");
    const paused = await db.pool.query("SELECT details FROM audit_log WHERE org_id = 'org-a' AND action = 'agent_upgrade.paused'");
    assert.deepEqual(paused.rows[0].details.guards, ["comparative"]);
    assert.deepEqual(await step(t0 + 9 * minute), [], "a paused rollout stays where it stopped");

    // An owner resumes past the regression (the console marks the wave's guard overridden): the next wave goes out.
    await db.pool.query("UPDATE agent_upgrade_waves SET overridden_at = $2 WHERE rollout_id = $1", [rollout, new Date(t0 + 10 * minute)]);
    await db.pool.query("UPDATE agent_upgrade_rollouts SET status = 'running', status_reason = '' WHERE id = $1", [rollout]);
    await heartbeat("org-a", t0 + 10 * minute);
    assert.deepEqual(await step(t0 + 10 * minute), ["wave-offered"]);
  });

  it("holds the wave while the guards lack data, with the reason shown, and goes on when the data is there", async () => {
    const rollout = await startRollout("org-a", [[0], [1, 2]]);
    const ids = servers("org-a");
    // Only the canary and one other server send read-cache telemetry: too few to compare against.
    await readCache("org-a", 0.05, t0 - 60 * minute, t0 + 60 * minute, ids.slice(0, 2));
    await installed("org-a", 0, t0 + 2 * minute);
    assert.deepEqual(await step(t0 + 2 * minute), ["wave-installed"]);
    await heartbeat("org-a", t0 + 7.5 * minute);
    assert.deepEqual(await step(t0 + 7.5 * minute), ["holding"]);
    const held = await guardRow(rollout, 0);
    assert.equal(held?.verdict, "hold");
    assert.match(
      held?.reason ?? "",
      /^Holding: not enough data to judge the wave after 5 min on the new version: Against servers not yet changed: /,
    );
    assert.equal(held?.readings.find((r) => r.guard === "comparative")?.status, "not-enough-data");
    const running = await db.pool.query("SELECT status FROM agent_upgrade_rollouts WHERE id = $1", [rollout]);
    assert.equal(running.rows[0].status, "running", "a hold is not a pause");
    assert.deepEqual(await states(rollout), ["0:installed", "1:waiting", "1:waiting"], "a wave short of data does not pass");
    await heartbeat("org-a", t0 + 8 * minute);
    assert.deepEqual(await step(t0 + 8 * minute), ["holding"]);

    // The other servers' telemetry arrives: the re-read (at most once a minute) passes the wave.
    await readCache("org-a", 0.05, t0 - 60 * minute, t0 + 60 * minute, ids.slice(2));
    await heartbeat("org-a", t0 + 9 * minute);
    assert.deepEqual(await step(t0 + 9 * minute), ["wave-offered"]);
    assert.equal((await guardRow(rollout, 0))?.verdict, "pass");
    assert.deepEqual(await actions("org-a"), [
      "agent_upgrade.wave_installed",
      "agent_upgrade.wave_held",
      "agent_upgrade.wave_passed",
      "agent_upgrade.wave_offered",
    ]);
  });

  it("holds a wave whose servers measure none of the compared costs: it never passes on no evidence", async () => {
    const rollout = await startRollout("org-a", [[0], [1, 2]]);
    await installed("org-a", 0, t0 + 2 * minute);
    assert.deepEqual(await step(t0 + 2 * minute), ["wave-installed"]);
    await heartbeat("org-a", t0 + 7.5 * minute);
    assert.deepEqual(await step(t0 + 7.5 * minute), ["holding"]);
    assert.equal(
      (await guardRow(rollout, 0))?.reason,
      "Holding: not enough data to judge the wave after 5 min on the new version: Against servers not yet changed: None of the compared costs per I/O is measured on the wave's servers. The wave is not judged without a comparison.",
    );
    assert.deepEqual(await states(rollout), ["0:installed", "1:waiting", "1:waiting"]);
  });

  it("pauses at the wave where a server rolled back, and offers no further wave", async () => {
    const rollout = await startRollout("org-a", [[0], [1, 2]]);
    await db.pool.query(
      "UPDATE agent_upgrades SET state = 'rolled_back', message = 'rolled back to 0.1.0: 0.1.1 stopped before it reported healthy (exit status 1)', finished_at = now() WHERE rollout_id = $1 AND wave = 0",
      [rollout],
    );
    assert.deepEqual(await step(t0 + minute), ["paused"]);
    const { rows } = await db.pool.query("SELECT status, status_reason FROM agent_upgrade_rollouts WHERE id = $1", [rollout]);
    assert.equal(rows[0].status, "paused");
    assert.equal(
      rows[0].status_reason,
      "org-a-db-01 rolled back from 0.1.1: rolled back to 0.1.0: 0.1.1 stopped before it reported healthy (exit status 1)",
    );
    assert.deepEqual(await states(rollout), ["0:rolled_back", "1:waiting", "1:waiting"]);
    assert.deepEqual(await step(t0 + 60 * minute), [], "a paused rollout stays where it stopped");
    assert.deepEqual(await actions("org-a"), ["agent_upgrade.paused"]);
  });

  it("pauses when a server has not reported on its offer in time, or went offline while soaking", async () => {
    await startRollout("org-a", [[0], [1, 2]]);
    assert.deepEqual(await step(t0 + 14 * minute), ["watching"]);
    assert.deepEqual(await step(t0 + 16 * minute), ["paused"]);
    const silent = await db.pool.query("SELECT status_reason FROM agent_upgrade_rollouts WHERE org_id = 'org-a'");
    assert.match(silent.rows[0].status_reason, /org-a-db-01 has not reported on its upgrade to 0\.1\.1 for 15 minutes/);

    await db.pool.query("DELETE FROM agent_upgrade_rollouts");
    await startRollout("org-a", [[0], [1, 2]]);
    await installed("org-a", 0, t0 + minute);
    assert.deepEqual(await step(t0 + minute), ["wave-installed"]);
    // Its last word was at t0 + 1 min; three minutes later it counts as offline.
    assert.deepEqual(await step(t0 + 4 * minute), ["paused"]);
    const offline = await db.pool.query("SELECT status_reason FROM agent_upgrade_rollouts WHERE org_id = 'org-a'");
    assert.equal(offline.rows[0].status_reason, "org-a-db-01 went offline after upgrading to 0.1.1");
  });

  it("skips a server that already runs the version when its wave comes, and keeps organisations apart", async () => {
    const a = await startRollout("org-a", [[0], [1]], 0);
    const b = await startRollout("org-b", [[0], [1]], 0);
    await readCache("org-a", 0.05, t0 - 30 * minute, t0 + 30 * minute);
    await readCache("org-b", 0.05, t0 - 30 * minute, t0 + 30 * minute);
    await installed("org-a", 0, t0 + minute);
    await db.pool.query("UPDATE servers SET agent_version = '0.1.1' WHERE id = $1", [servers("org-a")[1]]);
    await db.pool.query("UPDATE servers SET last_seen_at = $1", [new Date(t0 + minute)]);
    assert.deepEqual(await step(t0 + minute), ["wave-installed", "watching"]);
    // No soak, but the guards read at least the product's 5-minute guard window.
    assert.deepEqual(await step(t0 + minute), ["soaking", "watching"]);
    await db.pool.query("UPDATE servers SET last_seen_at = $1", [new Date(t0 + 6.5 * minute)]);
    assert.deepEqual(await step(t0 + 6.5 * minute), ["wave-offered", "watching"]);
    assert.deepEqual(await states(a), ["0:installed", "1:skipped"]);
    assert.deepEqual(await states(b), ["0:offered", "1:waiting"]);
    const comparative = (await guardRow(a, 0))?.readings.find((r) => r.guard === "comparative") as unknown as {
      metrics: { key: string; treated: number; control: number }[];
    };
    assert.deepEqual(
      comparative.metrics.filter((m) => m.key === "readCacheMissRatio").map((m) => [m.treated, m.control]),
      [[1, 5]],
      "the controls are this organisation's five other servers, none of the other organisation's",
    );
    assert.deepEqual(await actions("org-b"), []);
  });
});
