// Agent upgrades from the console against a real database, as the console's login runs them:
// start (waves planned from the servers that can take the version, the others skipped with the
// reason, one upgrade at a time), follow, pause, resume past a failure or retrying it, cancel,
// pin and unpin; roles; every step audited; another organisation's servers and upgrades unseen.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import { agentUpgradeRequestSchema } from "@spindle/domain";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { listAuditLog } from "@/modules/audit/lib/list-audit-log";
import { ProblemError } from "@/lib/problem";
import { controlUpgrade } from "./control-upgrade";
import { getRollout } from "./get-rollout";
import { getUpgradeOverview } from "./overview";
import { pinAgentVersion, unpinAgentVersion } from "./pins";
import { getServerAgentVersion } from "./server-agent";
import { startUpgrade, type UpgradeActor } from "./start-upgrade";

const remote = { upgrade: { installMethod: "script", remote: true, reason: "" } };
const deb = {
  upgrade: {
    installMethod: "deb",
    remote: false,
    reason: "installed from the apt repository: upgrade it with apt-get install spindle-agent",
  },
};

describe("agent upgrades in the console", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: UpgradeActor;
  let viewer: UpgradeActor;
  let rival: UpgradeActor;
  const ids: Record<string, string> = {};

  async function agentServer(actor: UpgradeActor, hostname: string, version: string, capabilities: object, tags: string[] = []) {
    const server = await createServer(db.prisma, actor.orgId, hostname, new Date());
    await db.prisma.server.update({ where: { id: server.id }, data: { agentVersion: version, arch: "amd64", tags } });
    await db.prisma.agent.create({
      data: { orgId: actor.orgId, serverId: server.id, credentialHash: Buffer.from(randomUUID()), capabilities },
    });
    ids[hostname] = server.id;
    return server.id;
  }

  async function expectProblem(work: Promise<unknown>, status: number, detail: RegExp) {
    await assert.rejects(
      work,
      (error: unknown) => error instanceof ProblemError && error.status === status && detail.test(error.detail ?? ""),
    );
  }

  before(async () => {
    db = await createTestDatabase();
    owner = { ...(await createOrganisation(db.prisma, "Acme")), role: "owner" };
    const suffix = randomUUID().slice(0, 8);
    const user = await db.prisma.user.create({ data: { id: `viewer-${suffix}`, name: "Vic", email: `vic-${suffix}@example.com` } });
    await db.prisma.member.create({ data: { id: `member-${suffix}`, organizationId: owner.orgId, userId: user.id, role: "viewer" } });
    viewer = { orgId: owner.orgId, userId: user.id, role: "viewer" };
    rival = { ...(await createOrganisation(db.prisma, "Rival")), role: "owner" };
    for (const version of ["0.1.0", "0.1.1", "0.1.2"]) {
      await db.prisma.agentRelease.create({
        data: { version, files: [{ os: "linux", arch: "amd64", name: "spindle-agent-linux-amd64", sha256: "a".repeat(64), size: 1 }] },
      });
    }
    await db.prisma.agentRelease.create({ data: { version: "0.0.9", files: [], lastSeenAt: new Date(Date.now() - 48 * 3600_000) } });
    await agentServer(owner, "db-01", "0.1.0", remote, ["db"]);
    await agentServer(owner, "db-02", "0.1.0", remote, ["db"]);
    await agentServer(owner, "web-01", "0.1.0", remote, ["web"]);
    await agentServer(owner, "pkg-01", "0.1.0", deb);
    await agentServer(owner, "new-01", "0.1.1", remote);
    await agentServer(rival, "rival-01", "0.1.0", remote);
  });
  after(async () => db?.drop());
  beforeEach(async () => {
    await db.pool.query("DELETE FROM agent_upgrade_rollouts; DELETE FROM agent_upgrades; DELETE FROM agent_version_pins");
  });

  it("shows the releases served, the fleet's versions and which servers have an upgrade available", async () => {
    const overview = await getUpgradeOverview(db, owner.orgId);
    assert.deepEqual(
      overview.releases.map((r) => r.version),
      ["0.1.2", "0.1.1", "0.1.0"],
      "newest first; a release no gateway serves any more is gone",
    );
    assert.equal(overview.latestVersion, "0.1.2");
    assert.deepEqual(overview.versions, [
      { version: "0.1.1", servers: 1 },
      { version: "0.1.0", servers: 4 },
    ]);
    assert.deepEqual(
      overview.servers.map((s) => [s.hostname, s.upgradeAvailable]),
      [
        ["db-01", "0.1.2"],
        ["db-02", "0.1.2"],
        ["new-01", "0.1.2"],
        ["pkg-01", "0.1.2"],
        ["web-01", "0.1.2"],
      ],
    );
    assert.equal(overview.servers.find((s) => s.hostname === "pkg-01")?.upgrade?.installMethod, "deb");
    assert.ok(!overview.servers.some((s) => s.hostname === "rival-01"), "another organisation's server is not listed");
  });

  it("starts an upgrade in waves, skipping with the reason the servers that cannot take it, and audits it", async () => {
    const request = agentUpgradeRequestSchema.parse({
      targetVersion: "0.1.1",
      scope: { kind: "organization" },
      plan: { canary: 1, wavePercents: [100] },
    });
    const rollout = await startUpgrade(db, owner, request);
    assert.equal(rollout.status, "running");
    assert.equal(rollout.waveCount, 2);
    assert.deepEqual(rollout.counts, { offered: 1, waiting: 2, skipped: 2 });
    const detail = await getRollout(db, owner.orgId, rollout.id);
    assert.equal(detail.waves[0]!.attempts[0]!.state, "offered");
    assert.deepEqual(
      detail.skipped.map((a) => [a.hostname, a.message]),
      [
        ["new-01", "already runs 0.1.1"],
        ["pkg-01", "installed from the apt repository: upgrade it with apt-get install spindle-agent"],
      ],
    );
    await expectProblem(startUpgrade(db, owner, request), 409, /already has an agent upgrade running or paused/);
    const audit = await listAuditLog(db, owner.orgId, {});
    assert.match(audit.entries[0]!.action, /agent_upgrade\.started/);
    assert.equal((audit.entries[0]!.details as { version: string }).version, "0.1.1");
    await expectProblem(getRollout(db, rival.orgId, rollout.id), 404, /./);
  });

  it("refuses what cannot be started, and viewers", async () => {
    await expectProblem(
      startUpgrade(db, owner, agentUpgradeRequestSchema.parse({ targetVersion: "9.9.9", scope: { kind: "organization" } })),
      400,
      /No gateway serves agent 9\.9\.9/,
    );
    await expectProblem(
      startUpgrade(db, owner, agentUpgradeRequestSchema.parse({ targetVersion: "0.1.1", scope: { kind: "tag", tag: "nothing" } })),
      422,
      /No server matches servers tagged nothing/,
    );
    await expectProblem(
      startUpgrade(
        db,
        owner,
        agentUpgradeRequestSchema.parse({ targetVersion: "0.1.1", scope: { kind: "servers", serverIds: [ids["rival-01"]!] } }),
      ),
      404,
      /does not exist/,
    );
    await expectProblem(
      startUpgrade(db, viewer, agentUpgradeRequestSchema.parse({ targetVersion: "0.1.1", scope: { kind: "organization" } })),
      403,
      /cannot|not start/,
    );
  });

  it("pauses, resumes past a failure or retries it, and cancels, each audited", async () => {
    const rollout = await startUpgrade(
      db,
      owner,
      agentUpgradeRequestSchema.parse({
        targetVersion: "0.1.1",
        scope: { kind: "tag", tag: "db" },
        plan: { canary: 1, wavePercents: [100] },
      }),
    );
    await db.pool.query(
      `UPDATE agent_upgrades SET state = 'rolled_back', message = 'rolled back to 0.1.0: boom', finished_at = now() WHERE rollout_id = $1 AND wave = 0`,
      [rollout.id],
    );
    await db.pool.query(`UPDATE agent_upgrade_rollouts SET status = 'paused', status_reason = 'db-0x rolled back' WHERE id = $1`, [
      rollout.id,
    ]);
    await expectProblem(controlUpgrade(db, owner, rollout.id, "pause"), 409, /is paused/);
    const resumed = await controlUpgrade(db, owner, rollout.id, "resume", { retryFailed: true });
    assert.equal(resumed.status, "running");
    const detail = await getRollout(db, owner.orgId, rollout.id);
    assert.deepEqual(
      detail.waves[0]!.attempts.map((a) => [a.state, a.acknowledged]),
      [
        ["rolled_back", true],
        ["offered", false],
      ],
      "the failure is acknowledged and a new attempt offered",
    );
    const cancelled = await controlUpgrade(db, owner, rollout.id, "cancel");
    assert.equal(cancelled.status, "cancelled");
    assert.deepEqual((await getRollout(db, owner.orgId, rollout.id)).waves.flatMap((w) => w.attempts.map((a) => a.state)).sort(), [
      "cancelled",
      "cancelled",
      "rolled_back",
    ]);
    const actions = (await listAuditLog(db, owner.orgId, {})).entries.slice(0, 3).map((e) => e.action);
    assert.deepEqual(actions, ["agent_upgrade.cancelled", "agent_upgrade.resumed", "agent_upgrade.started"]);
    await expectProblem(controlUpgrade(db, viewer, rollout.id, "cancel"), 403, /not cancel/);
    await expectProblem(controlUpgrade(db, rival, rollout.id, "pause"), 404, /./);
  });

  it("shows each wave's guard readings with their interval, overrides a hold with a reason, resumes past a trip, each audited", async () => {
    const rollout = await startUpgrade(
      db,
      owner,
      agentUpgradeRequestSchema.parse({
        targetVersion: "0.1.1",
        scope: { kind: "tag", tag: "db" },
        plan: { canary: 1, wavePercents: [100] },
      }),
    );
    const basis = "difference in differences of each cost per I/O, the wave's 1 server against servers not yet changed";
    const interval = { low: 0.4, high: 1.9, confidence: 0.95 };
    const metric = {
      key: "readCacheMissRatio",
      label: "Read-cache miss ratio (managed files)",
      scale: "relative",
      pValue: 0.001,
      tolerance: 0.1,
    };
    /** What the worker stores after the canary's soak (apps/worker/src/upgrades/guards.ts). */
    const judged = (verdict: string, reason: string, status: string) =>
      db.pool.query(
        `INSERT INTO agent_upgrade_waves (org_id, rollout_id, wave, verdict, reason, readings, readings_at, after_start, after_end, before_start, before_end)
         VALUES ($1, $2, 0, $3, $4, $5, now(), now() - interval '5 min', now(), now() - interval '12 min', now() - interval '7 min')
         ON CONFLICT (rollout_id, wave) DO UPDATE SET verdict = excluded.verdict, reason = excluded.reason, readings = excluded.readings, overridden_at = NULL`,
        [
          owner.orgId,
          rollout.id,
          verdict,
          reason,
          JSON.stringify([
            { guard: "p99_read_latency", status: "not-measured", summary: "No server of the wave measures read latency.", basis: "eBPF" },
            {
              guard: "comparative",
              status,
              summary:
                status === "trip"
                  ? "Worse than the servers not yet changed: Read-cache miss ratio (managed files) +90.0 %."
                  : "Too few controls.",
              basis,
              metrics: [
                status === "trip"
                  ? {
                      ...metric,
                      status,
                      change: 0.9,
                      interval,
                      treated: 1,
                      control: 4,
                      detail: "+90.0 % (95 % interval +40.0 % to +190.0 %)",
                    }
                  : {
                      ...metric,
                      status,
                      change: null,
                      interval: null,
                      scale: null,
                      pValue: null,
                      tolerance: null,
                      treated: 1,
                      control: 1,
                      detail: "too few controls",
                    },
              ],
            },
          ]),
        ],
      );
    await judged("hold", "Holding: not enough data to judge the wave after 10 min on the new version: too few controls", "not-enough-data");
    let detail = await getRollout(db, owner.orgId, rollout.id);
    assert.equal(detail.waves[0]!.guards?.verdict, "hold");
    assert.match(detail.waves[0]!.guards?.reason ?? "", /^Holding: not enough data/);
    assert.deepEqual(
      detail.waves[0]!.guards?.readings.map((r) => [r.guard, r.status]),
      [
        ["p99_read_latency", "not-measured"],
        ["comparative", "not-enough-data"],
      ],
    );
    assert.equal(detail.waves[1]!.guards, null, "a wave not judged yet has no readings");

    await expectProblem(controlUpgrade(db, owner, rollout.id, "override", { reason: "  " }), 400, /Say why/);
    await expectProblem(controlUpgrade(db, viewer, rollout.id, "override", { reason: "x" }), 403, /not override/);
    await expectProblem(controlUpgrade(db, rival, rollout.id, "override", { reason: "x" }), 404, /./);
    await controlUpgrade(db, owner, rollout.id, "override", { reason: "the canary has no read cache to compare" });
    detail = await getRollout(db, owner.orgId, rollout.id);
    assert.ok(detail.waves[0]!.guards?.overriddenAt, "the hold is overridden");
    assert.equal(typeof detail.waves[0]!.guards?.overriddenBy, "string");
    await expectProblem(controlUpgrade(db, owner, rollout.id, "override", { reason: "again" }), 409, /not holding/);

    // A regression paused it: the page shows the reading with its interval; resume takes it on.
    await judged("trip", "A guard tripped after 10 min on the new version: Against servers not yet changed: worse", "trip");
    await db.pool.query("UPDATE agent_upgrade_rollouts SET status = 'paused', status_reason = 'A guard tripped' WHERE id = $1", [
      rollout.id,
    ]);
    detail = await getRollout(db, owner.orgId, rollout.id);
    const comparative = detail.waves[0]!.guards?.readings.find((r) => r.guard === "comparative");
    assert.deepEqual(
      comparative?.metrics.map((m) => [m.status, m.change, m.interval]),
      [["trip", 0.9, interval]],
    );
    await controlUpgrade(db, owner, rollout.id, "resume");
    assert.ok((await getRollout(db, owner.orgId, rollout.id)).waves[0]!.guards?.overriddenAt, "resuming takes the regression on");
    const entries = (await listAuditLog(db, owner.orgId, {})).entries.slice(0, 2);
    assert.deepEqual(
      entries.map((e) => e.action),
      ["agent_upgrade.resumed", "agent_upgrade.guard_overridden"],
    );
    assert.equal((entries[0]!.details as { guardOverridden?: boolean }).guardOverridden, true);
    assert.equal((entries[1]!.details as { reason?: string }).reason, "the canary has no read cache to compare");
  });

  it("pins a server: offered the version at once, left out of upgrades, and unpinned", async () => {
    const { server, note } = await pinAgentVersion(db, owner, ids["web-01"]!, { version: "0.1.2", reason: "vendor support" });
    assert.equal(note, null);
    // Held at its pin: the server shows the pin, not an offer of the newest release.
    assert.equal(server.upgradeAvailable, null);
    const pinnedRow = (await getUpgradeOverview(db, owner.orgId)).servers.find((s) => s.hostname === "web-01");
    assert.deepEqual([pinnedRow?.pinnedVersion, pinnedRow?.upgradeAvailable], ["0.1.2", null]);
    assert.deepEqual(server.pin && [server.pin.version, server.pin.reason], ["0.1.2", "vendor support"]);
    assert.deepEqual(
      server.attempts.map((a) => [a.targetVersion, a.state]),
      [["0.1.2", "offered"]],
    );
    const rollout = await startUpgrade(
      db,
      owner,
      agentUpgradeRequestSchema.parse({ targetVersion: "0.1.1", scope: { kind: "tag", tag: "web" } }).valueOf() as never,
    ).catch((error: ProblemError) => error);
    assert.ok(
      rollout instanceof ProblemError && /pinned to 0\.1\.2/.test(rollout.detail ?? ""),
      "the pinned server is left out of the upgrade",
    );
    const unpinned = await unpinAgentVersion(db, owner, ids["web-01"]!);
    assert.equal(unpinned.pin, null);
    assert.equal(unpinned.upgradeAvailable, "0.1.2", "unpinned, it is offered the newest again");
    assert.deepEqual(
      unpinned.attempts.map((a) => [a.state, a.message]),
      [["cancelled", "the pin was removed"]],
    );
    const pkg = await pinAgentVersion(db, owner, ids["pkg-01"]!, { version: "0.1.1", reason: "" });
    assert.match(pkg.note ?? "", /cannot replace itself \(installed from the apt repository/);
    await expectProblem(
      pinAgentVersion(db, owner, ids["web-01"]!, { version: "7.7.7", reason: "" }),
      400,
      /No gateway serves agent 7\.7\.7/,
    );
    await expectProblem(pinAgentVersion(db, viewer, ids["web-01"]!, { version: "0.1.1", reason: "" }), 403, /not pin/);
    await expectProblem(pinAgentVersion(db, rival, ids["web-01"]!, { version: "0.1.1", reason: "" }), 404, /./);
    await expectProblem(getServerAgentVersion(db, rival.orgId, ids["web-01"]!), 404, /./);
    const actions = (await listAuditLog(db, owner.orgId, {})).entries.slice(0, 3).map((e) => e.action);
    assert.deepEqual(actions, ["agent_version.pinned", "agent_version.unpinned", "agent_version.pinned"]);
  });
});
