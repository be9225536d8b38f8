// Rollouts from the console's side, against a real database as the console's login: a wide change
// starts a rollout (servers held on their previous policy until a wave releases them), "Apply now"
// skips it with an audit entry, the organisation setting, conflicting changes refused, pause /
// resume / roll back / abort / override with their timeline and audit entries, and tenant walls.
// The worker's side (waves, guards, rollbacks) is apps/worker/src/rollouts/advance.test.ts.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import type { RoleName } from "@/modules/auth/lib/access";
import { listAuditLog } from "@/modules/audit/lib/list-audit-log";
import { assignPolicy } from "@/modules/policies/lib/assign-policy";
import type { PolicyActor } from "@/modules/policies/lib/authorise";
import { createPolicy } from "@/modules/policies/lib/create-policy";
import { getPolicy } from "@/modules/policies/lib/get-policy";
import { getServerPolicy } from "@/modules/policies/lib/get-server-policy";
import { savePolicyVersion } from "@/modules/policies/lib/save-policy-version";
import { setServerTags } from "@/modules/policies/lib/set-server-tags";
import { controlRollout, overrideGuard } from "./control-rollout";
import { getRollout, listRolloutNotices, listRollouts } from "./read-rollouts";
import { getRolloutSettings, setRolloutSettings } from "./rollout-settings";

const v1 = { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/db/**"] } };
const v2 = { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/db/**"], budgetPercentOfAvailable: 30 } };

describe("rollouts in the console", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: PolicyActor;
  let admin: PolicyActor;
  let viewer: PolicyActor;
  let other: PolicyActor;
  const servers: string[] = [];

  async function member(orgId: string, role: RoleName): Promise<PolicyActor> {
    const suffix = randomUUID().slice(0, 8);
    const user = await db.prisma.user.create({ data: { id: `user-${suffix}`, name: `A ${role}`, email: `${role}-${suffix}@example.com` } });
    await db.prisma.member.create({ data: { id: `member-${suffix}`, organizationId: orgId, userId: user.id, role } });
    return { orgId, userId: user.id, role };
  }
  const query = async <T>(sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows as T[];
  /** What the worker would do to release a wave: the console only reads these rows. */
  const release = (rolloutId: string, wave: number) =>
    query("UPDATE rollout_servers SET state = 'applied', released_at = now(), applied_at = now() WHERE rollout_id = $1 AND wave = $2", [
      rolloutId,
      wave,
    ]);

  before(async () => {
    db = await createTestDatabase();
    owner = { ...(await createOrganisation(db.prisma, "Acme")), role: "owner" };
    admin = await member(owner.orgId, "admin");
    viewer = await member(owner.orgId, "viewer");
    other = { ...(await createOrganisation(db.prisma, "Rival")), role: "owner" };
    for (const hostname of ["db-1", "db-2", "db-3", "db-4"]) {
      const server = await createServer(db.prisma, owner.orgId, hostname, new Date());
      servers.push(server.id);
      await setServerTags(db, owner, server.id, { tags: ["db"] });
    }
  });
  after(async () => {
    await db?.drop();
  });

  let policyId = "";
  let rolloutId = "";

  it("sends a tag-wide change through a rollout by default, holding every server on its previous policy", async () => {
    assert.deepEqual(await getRolloutSettings(db, owner.orgId), { rolloutsRequired: true });
    policyId = (await createPolicy(db, owner, { name: "db", document: v1 })).id;
    // The first assignment reaches four servers: a rollout too.
    const first = await assignPolicy(db, owner, { scope: "tag", tag: "db", policyId, delivery: { mode: "now", confirm: true } });
    assert.deepEqual(first.delivery, { mode: "now", reason: "applied at once, as asked" });
    const before = await getServerPolicy(db, owner.orgId, servers[0]!);
    assert.ok(before.effective.ok);

    const saved = await savePolicyVersion(db, owner, policyId, {
      document: v2,
      comment: "a bigger budget",
      delivery: { mode: "rollout", plan: { wavePercents: [50, 100], guardWindowMinutes: 10 } },
    });
    assert.equal(saved.delivery.mode, "rollout");
    assert.ok(saved.delivery.mode === "rollout");
    rolloutId = saved.delivery.rolloutId;
    assert.deepEqual([saved.delivery.servers, saved.delivery.waves], [4, 3]);

    const detail = await getRollout(db, owner.orgId, rolloutId);
    assert.equal(detail.title, "Policy “db” version 2");
    assert.equal(detail.status, "running");
    assert.deepEqual(
      detail.waveDetails.map((w) => [w.label, w.servers.length]),
      [
        ["Canary", 1],
        ["50 %", 1],
        ["100 %", 2],
      ],
    );
    assert.equal(detail.plan.guardWindowMinutes, 10);
    assert.deepEqual(detail.slots, [
      { scope: "tag", tag: "db", serverHostname: null, afterPolicyName: "db", before: { policyId, policyName: "db", version: 1 } },
    ]);
    assert.match(
      detail.timeline[0]!.message,
      /^Started: 4 servers in 3 waves\. Canary: 1 server across tags, then 50 % → 100 %; 10 min guard window each\.$/,
    );

    // Declared: version 2. Every server still merges version 1 until a wave releases it.
    const held = await getServerPolicy(db, owner.orgId, servers[0]!);
    assert.deepEqual(
      held.effective.layers.map((l) => l.source.version),
      [1],
    );
    assert.equal(held.effective.ok && held.effective.hash, before.effective.ok && before.effective.hash);
    const canary = detail.waveDetails[0]!.servers[0]!.serverId;
    await release(rolloutId, 0);
    assert.deepEqual(
      (await getServerPolicy(db, owner.orgId, canary)).effective.layers.map((l) => l.source.version),
      [2],
      "released: the new version",
    );
    const audit = (await listAuditLog(db, owner.orgId)).entries.map((e) => e.action);
    assert.ok(audit.includes("rollout.created") && audit.includes("policy.applied_now"));
  });

  it("refuses another change of the same slot or policy while the rollout runs", async () => {
    await assert.rejects(savePolicyVersion(db, owner, policyId, { document: v1 }), {
      status: 409,
      message: /The rollout "Policy “db” version 2" is still changing tag db/,
    });
    const another = await createPolicy(db, owner, { name: "other", document: v1 });
    await assert.rejects(
      assignPolicy(db, owner, { scope: "tag", tag: "db", policyId: another.id, delivery: { mode: "now", confirm: true } }),
      { status: 409 },
    );
    assert.equal((await getPolicy(db, owner.orgId, policyId)).versions.length, 2, "nothing saved");
  });

  it("lists it as in progress, with the wave and the servers confirmed", async () => {
    const [summary] = await listRollouts(db, owner.orgId, { active: true, policyId });
    assert.equal(summary?.id, rolloutId);
    assert.equal(summary?.applied, 1);
    assert.deepEqual(await listRollouts(db, other.orgId), []);
  });

  it("pauses and resumes, audited, and lets only owners and admins act", async () => {
    await assert.rejects(controlRollout(db, viewer, rolloutId, "pause"), { status: 403 });
    await controlRollout(db, admin, rolloutId, "pause");
    await assert.rejects(controlRollout(db, admin, rolloutId, "pause"), { status: 409, message: /is paused, not running/ });
    await controlRollout(db, owner, rolloutId, "resume");
    const kinds = (await getRollout(db, owner.orgId, rolloutId)).timeline.map((e) => [e.kind, e.actor]);
    assert.deepEqual(kinds.slice(-2), [
      ["rollout.paused", "A admin"],
      ["rollout.resumed", "Acme owner"],
    ]);
    await assert.rejects(controlRollout(db, other, rolloutId, "pause"), { status: 404 });
  });

  it("lets a holding wave pass by override, with the reason in the audit log", async () => {
    await query(
      "UPDATE rollout_waves SET state = 'holding', hold_reason = 'Not enough data: 2 servers not yet changed; 3 are needed' WHERE rollout_id = $1 AND wave = 0",
      [rolloutId],
    );
    await assert.rejects(overrideGuard(db, viewer, rolloutId, { wave: 0, reason: "we watched it" }), { status: 403 });
    await assert.rejects(overrideGuard(db, owner, rolloutId, { wave: 1, reason: "we watched it" }), {
      status: 409,
      message: /50 % is pending/,
    });
    await overrideGuard(db, owner, rolloutId, { wave: 0, reason: "the canary's dashboards look right" });
    const wave = (await getRollout(db, owner.orgId, rolloutId)).waveDetails[0]!;
    assert.deepEqual([wave.state, wave.overriddenBy], ["passed", "Acme owner"]);
    const entry = (await listAuditLog(db, owner.orgId)).entries.find((e) => e.action === "rollout.guard_overridden");
    assert.equal(entry?.details.reason, "the canary's dashboards look right");
  });

  it("rolls every released server back by hand, marks their charts and pauses", async () => {
    await controlRollout(db, owner, rolloutId, "rollback");
    const detail = await getRollout(db, owner.orgId, rolloutId);
    assert.equal(detail.status, "paused");
    assert.match(detail.statusReason, /^Rolled back: rolled back by Acme owner/);
    const canary = detail.waveDetails[0]!.servers[0]!;
    assert.equal(canary.state, "rolled_back");
    assert.deepEqual(
      (await getServerPolicy(db, owner.orgId, canary.serverId)).effective.layers.map((l) => l.source.version),
      [1],
      "back on version 1",
    );
    assert.equal(
      (await query("SELECT 1 FROM server_events WHERE server_id = $1 AND kind = 'policy.rolled_back'", [canary.serverId])).length,
      1,
    );
    const [notice] = await listRolloutNotices(db, owner.orgId, null);
    assert.equal(notice?.kind, "rollout.rolled_back");
    assert.deepEqual(await listRolloutNotices(db, owner.orgId, notice!.eventId), []);
  });

  it("aborts: the declared state goes back, with a new version holding the previous document", async () => {
    await controlRollout(db, owner, rolloutId, "abort");
    const detail = await getRollout(db, owner.orgId, rolloutId);
    assert.equal(detail.status, "aborted");
    assert.match(detail.statusReason, /saved version 3 of “db” with the document of version 1/);
    const policy = await getPolicy(db, owner.orgId, policyId);
    assert.deepEqual(policy.versions[0]?.document, v1);
    assert.equal(policy.versions[0]?.comment, "Rollout aborted: back to version 1");
    for (const id of servers)
      assert.deepEqual(
        (await getServerPolicy(db, owner.orgId, id)).effective.layers.map((l) => l.source.version),
        [3],
      );
    await assert.rejects(controlRollout(db, owner, rolloutId, "resume"), { status: 409, message: /aborted/ });
    // The slot is free again.
    const again = await savePolicyVersion(db, owner, policyId, { document: v2, delivery: { mode: "now", confirm: true } });
    assert.equal(again.delivery.mode, "now");
  });

  it("refuses a plan that cannot be made, keeping nothing of the change", async () => {
    await assert.rejects(
      savePolicyVersion(db, owner, policyId, {
        document: { ...v2, telemetry: { intervalSeconds: 20 } },
        delivery: { mode: "rollout", plan: { canary: { kind: "tag", tag: "canary" } } },
      }),
      { status: 422, message: /No server the change reaches carries the tag "canary"/ },
    );
    assert.equal((await getPolicy(db, owner.orgId, policyId)).versions.length, 4);
  });

  it("goes out at once when the organisation does not require rollouts; only owners switch that", async () => {
    await assert.rejects(setRolloutSettings(db, admin, false), { status: 403 });
    await setRolloutSettings(db, owner, false);
    const saved = await savePolicyVersion(db, owner, policyId, { document: v1 });
    assert.deepEqual(saved.delivery, { mode: "now", reason: "this change does not need a rollout" });
    const entry = (await listAuditLog(db, owner.orgId)).entries.find((e) => e.action === "rollout.settings_changed");
    assert.deepEqual(entry?.details, { rolloutsRequired: false, before: true });
    await setRolloutSettings(db, owner, true);
  });
});
