// Policies against a real database: versions, assignments, tags, the effective policy a server
// gets, the notifications gateways hear, the audit trail, tenant isolation and roles.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { PoolClient } from "pg";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import type { RoleName } from "@/modules/auth/lib/access";
import { listAuditLog } from "@/modules/audit/lib/list-audit-log";
import { assignPolicy } from "./assign-policy";
import type { PolicyActor } from "./authorise";
import { createPolicy } from "./create-policy";
import { getPolicy } from "./get-policy";
import { getServerPolicy } from "./get-server-policy";
import { listPolicies } from "./list-policies";
import { removeAssignment } from "./remove-assignment";
import { savePolicyVersion } from "./save-policy-version";
import { setServerTags } from "./set-server-tags";
import { updatePolicy } from "./update-policy";
import { setRolloutSettings } from "@/modules/rollouts/lib/rollout-settings";

const cacheOn = { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/db/**"], budgetPercentOfAvailable: 30 } };

describe("policies", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: PolicyActor;
  let viewer: PolicyActor;
  let other: PolicyActor;
  let listener: PoolClient;
  const heard: string[] = [];

  async function member(orgId: string, role: RoleName): Promise<PolicyActor> {
    const suffix = randomUUID().slice(0, 8);
    const user = await db.prisma.user.create({ data: { id: `user-${suffix}`, name: `A ${role}`, email: `${role}-${suffix}@example.com` } });
    await db.prisma.member.create({ data: { id: `member-${suffix}`, organizationId: orgId, userId: user.id, role } });
    return { orgId, userId: user.id, role };
  }

  /** The spindle_policy_changed payloads `work` caused, as a gateway's LISTEN connection sees them. */
  async function notificationsOf(work: () => Promise<unknown>): Promise<unknown[]> {
    await settle(); // earlier work's notifications must not count as this work's
    heard.length = 0;
    await work();
    await settle();
    return heard.map((payload) => JSON.parse(payload));
  }

  /** A round trip on the listener, then a moment: whatever was committed has been delivered. */
  async function settle() {
    await listener.query("SELECT 1");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  before(async () => {
    db = await createTestDatabase();
    owner = { ...(await createOrganisation(db.prisma, "Acme")), role: "owner" };
    viewer = await member(owner.orgId, "viewer");
    other = { ...(await createOrganisation(db.prisma, "Rival")), role: "owner" };
    // These tests are about the declared state and the effective policy it gives at once; how a
    // change goes out as a rollout is modules/rollouts' tests, with the setting on.
    await setRolloutSettings(db, owner, false);
    listener = await db.pool.connect();
    listener.on("notification", (message) => heard.push(message.payload ?? ""));
    await listener.query("LISTEN spindle_policy_changed");
  });
  after(async () => {
    listener?.release();
    await db?.drop();
  });

  describe("versions", () => {
    it("creates a policy with version 1 and numbers every save after it", async () => {
      const policy = await createPolicy(db, owner, {
        name: "Postgres",
        description: "database servers",
        document: cacheOn,
        comment: "first cut",
      });
      assert.deepEqual(
        policy.versions.map((v) => [v.version, v.comment, v.createdBy?.id]),
        [[1, "first cut", owner.userId]],
      );
      const saved = await savePolicyVersion(db, owner, policy.id, {
        document: { ...cacheOn, readCache: { ...cacheOn.readCache, prefetch: true } },
        comment: "prefetch",
        basedOnVersion: 1,
      });
      assert.equal(saved.version.version, 2);
      assert.deepEqual(saved.delivery, { mode: "now", reason: "this change does not need a rollout" });
      const racing = await Promise.all([
        savePolicyVersion(db, owner, policy.id, { document: { schemaVersion: 1, telemetry: { ebpf: "off" } } }),
        savePolicyVersion(db, owner, policy.id, { document: { schemaVersion: 1, telemetry: { ebpf: "on" } } }),
      ]);
      assert.deepEqual(racing.map((v) => v.version.version).sort(), [3, 4], "concurrent saves take distinct numbers");
      const detail = await getPolicy(db, owner.orgId, policy.id);
      assert.deepEqual(
        detail.versions.map((v) => v.version),
        [4, 3, 2, 1],
      );
      assert.deepEqual(detail.versions.at(-1)?.document, cacheOn, "each version keeps its own document");
    });

    it("refuses an invalid layer with every problem's path and code", async () => {
      await assert.rejects(
        createPolicy(db, owner, {
          name: "broken",
          document: { schemaVersion: 1, readCache: { budgetPercentOfAvailable: 95, pin: ["relative/path"], colour: "red" } },
        }),
        (error: { status: number; extra: { errors: { path: string; code: string }[] } }) => {
          assert.equal(error.status, 422);
          assert.deepEqual(
            error.extra.errors.map(({ path, code }) => [path, code]),
            [
              ["readCache.budgetPercentOfAvailable", "too_big"],
              ["readCache.colour", "unknown_field"],
              ["readCache.pin[0]", "not_absolute_path"],
            ],
          );
          return true;
        },
      );
      assert.equal(
        (await listPolicies(db, owner.orgId)).some((p) => p.name === "broken"),
        false,
        "nothing is stored",
      );
    });

    it("refuses a duplicate name (any case), a stale save and a save that changes nothing", async () => {
      await assert.rejects(createPolicy(db, owner, { name: "postgres" }), { status: 409 });
      const policy = await createPolicy(db, owner, { name: "Web" });
      await savePolicyVersion(db, owner, policy.id, { document: cacheOn, basedOnVersion: 1 });
      await assert.rejects(
        savePolicyVersion(db, owner, policy.id, { document: { schemaVersion: 1 }, basedOnVersion: 1 }),
        /Version 2 was saved after you opened version 1/,
      );
      await assert.rejects(savePolicyVersion(db, owner, policy.id, { document: cacheOn }), /exactly version 2/);
    });

    it("announces a saved version to the gateways", async () => {
      const policy = await createPolicy(db, owner, { name: "Announced" });
      const notes = await notificationsOf(() => savePolicyVersion(db, owner, policy.id, { document: cacheOn }));
      assert.deepEqual(notes, [{ orgId: owner.orgId }]);
    });
  });

  describe("assignments and the effective policy", () => {
    it("merges organisation default, tags in name order and the server's own policy", async () => {
      const server = await createServer(db.prisma, owner.orgId, "db-7");
      const make = async (name: string, document: Record<string, unknown>) => (await createPolicy(db, owner, { name, document })).id;
      const orgDefault = await make("Default", { schemaVersion: 1, telemetry: { intervalSeconds: 30, ebpf: "auto" } });
      const alpha = await make("Alpha", {
        schemaVersion: 1,
        readCache: { enabled: true, include: ["/srv/**"] },
        telemetry: { ebpf: "off" },
      });
      const beta = await make("Beta", { schemaVersion: 1, telemetry: { ebpf: "on" } });
      const own = await make("db-7 only", { schemaVersion: 1, readCache: { pin: ["/srv/db/catalogue"] } });

      const assigned = await notificationsOf(() => assignPolicy(db, owner, { scope: "organization", policyId: orgDefault }));
      assert.deepEqual(assigned, [{ orgId: owner.orgId }]);
      await assignPolicy(db, owner, { scope: "tag", tag: "beta", policyId: beta });
      await assignPolicy(db, owner, { scope: "tag", tag: "Alpha", policyId: alpha });
      await assignPolicy(db, owner, { scope: "server", serverId: server.id, policyId: own });

      const untagged = await getServerPolicy(db, owner.orgId, server.id);
      assert.ok(!untagged.effective.ok, "the server's pin needs the cache a tag enables");
      assert.deepEqual(
        untagged.effective.problems.map((p) => p.code),
        ["pin_requires_read_cache"],
      );
      assert.equal(untagged.status.state, "invalid");

      const retagged = await notificationsOf(() => setServerTags(db, owner, server.id, { tags: ["beta", " ALPHA ", "beta"] }));
      assert.deepEqual(retagged, [{ orgId: owner.orgId }]);
      const view = await getServerPolicy(db, owner.orgId, server.id);
      assert.deepEqual(view.tags, ["alpha", "beta"]);
      assert.deepEqual(
        view.effective.layers.map((layer) => [layer.source.scope, layer.source.tag, layer.source.policyName, layer.source.version]),
        [
          ["organization", null, "Default", 1],
          ["tag", "alpha", "Alpha", 1],
          ["tag", "beta", "Beta", 1],
          ["server", null, "db-7 only", 1],
        ],
      );
      assert.ok(view.effective.ok);
      assert.equal(view.effective.policy.telemetry.ebpf, "on", "beta comes after alpha");
      assert.equal(view.effective.policy.telemetry.intervalSeconds, 30);
      assert.deepEqual(view.effective.policy.readCache.pin, ["/srv/db/catalogue"]);
      const ebpf = view.effective.fields.find((field) => field.path === "telemetry.ebpf");
      assert.deepEqual(ebpf?.source, { scope: "tag", tag: "beta", policyId: beta, policyName: "Beta", version: 1 });
      assert.equal(view.status.state, "pending", "pending until the agent reports");

      // The gateway records the agent's RemoteConfigStatus for this very policy.
      await db.prisma.serverPolicyStatus.create({
        data: {
          orgId: owner.orgId,
          serverId: server.id,
          desiredVersionHash: view.effective.hash,
          appliedHash: view.effective.hash,
          status: "applied",
          reportedAt: new Date(),
          appliedAt: new Date("2026-11-21T10:00:00Z"),
        },
      });
      const applied = await getServerPolicy(db, owner.orgId, server.id);
      assert.equal(applied.status.state, "applied");
      assert.equal(applied.status.appliedAt, "2026-11-21T10:00:00.000Z");

      await savePolicyVersion(db, owner, beta, { document: { schemaVersion: 1, telemetry: { ebpf: "auto" } } });
      const changed = await getServerPolicy(db, owner.orgId, server.id);
      assert.equal(changed.status.state, "pending", "a new version is pending until the agent applies it");
      assert.equal(changed.effective.layers[2]?.source.version, 2, "the latest version of each policy applies");

      // An agent built before readCache.holdoutPercent refuses the policy, which has it by default.
      assert.ok(changed.effective.ok);
      await db.prisma.server.update({ where: { id: server.id }, data: { agentVersion: "0.1.0" } });
      await db.prisma.serverPolicyStatus.update({
        where: { serverId: server.id },
        data: {
          desiredVersionHash: changed.effective.hash,
          status: "failed",
          message:
            "invalid policy: readCache.holdoutPercent: is not a policy field: check its spelling and section against the policy reference",
        },
      });
      const refused = await getServerPolicy(db, owner.orgId, server.id);
      assert.equal(refused.status.state, "failed");
      assert.deepEqual(refused.status.olderAgent, { agentVersion: "0.1.0", fields: ["readCache.holdoutPercent"] });
    });

    it("replaces a target's policy, removes assignments and announces both", async () => {
      const first = await createPolicy(db, owner, { name: "Tag first" });
      const second = await createPolicy(db, owner, { name: "Tag second" });
      const { assignment: a } = await assignPolicy(db, owner, { scope: "tag", tag: "web", policyId: first.id });
      const { assignment: b } = await assignPolicy(db, owner, { scope: "tag", tag: "web", policyId: second.id });
      assert.equal(b.id, a.id, "one assignment per tag");
      assert.equal(b.policyName, "Tag second");
      const notes = await notificationsOf(() => removeAssignment(db, owner, b.id));
      assert.deepEqual(notes, [{ orgId: owner.orgId }]);
      assert.deepEqual((await getPolicy(db, owner.orgId, second.id)).assignments, []);
    });

    it("archives only a policy nobody uses, and never saves or assigns an archived one", async () => {
      const policy = await createPolicy(db, owner, { name: "Old" });
      const { assignment } = await assignPolicy(db, owner, { scope: "tag", tag: "old", policyId: policy.id });
      await assert.rejects(updatePolicy(db, owner, policy.id, { archived: true }), /remove its assignments/);
      await removeAssignment(db, owner, assignment.id);
      const archived = await updatePolicy(db, owner, policy.id, { archived: true });
      assert.ok(archived.archivedAt);
      assert.equal(
        (await listPolicies(db, owner.orgId)).some((p) => p.id === policy.id),
        false,
      );
      assert.equal(
        (await listPolicies(db, owner.orgId, { includeArchived: true })).some((p) => p.id === policy.id),
        true,
      );
      await assert.rejects(savePolicyVersion(db, owner, policy.id, { document: cacheOn }), { status: 409 });
      await assert.rejects(assignPolicy(db, owner, { scope: "organization", policyId: policy.id }), { status: 409 });
    });

    it("writes an audit row for every change, with who did it", async () => {
      const { entries } = await listAuditLog(db, owner.orgId);
      const actions = new Set(entries.map((entry) => entry.action));
      for (const action of [
        "policy.created",
        "policy.version_saved",
        "policy.assigned",
        "policy.unassigned",
        "policy.archived",
        "server.tags_changed",
      ]) {
        assert.ok(actions.has(action), `${action} is in the audit log`);
      }
      const tags = entries.find((entry) => entry.action === "server.tags_changed");
      assert.deepEqual(tags?.details, { hostname: "db-7", before: [], after: ["alpha", "beta"] });
      assert.equal(tags?.actor?.name, "Acme owner");
      assert.ok(
        entries.every((entry, index) => index === 0 || Number(entries[index - 1]!.id) > Number(entry.id)),
        "newest first",
      );
    });
  });

  describe("tenant isolation", () => {
    it("keeps another organisation from reading, changing or assigning anything of ours", async () => {
      const ours = await createPolicy(db, owner, { name: "Ours", document: cacheOn });
      const ourServer = await createServer(db.prisma, owner.orgId, "ours-1");
      const { assignment: ourAssignment } = await assignPolicy(db, owner, { scope: "server", serverId: ourServer.id, policyId: ours.id });
      const theirs = await createPolicy(db, other, { name: "Theirs" });

      await assert.rejects(getPolicy(db, other.orgId, ours.id), { status: 404 });
      await assert.rejects(savePolicyVersion(db, other, ours.id, { document: { schemaVersion: 1 } }), { status: 404 });
      await assert.rejects(updatePolicy(db, other, ours.id, { archived: true }), { status: 404 });
      await assert.rejects(assignPolicy(db, other, { scope: "organization", policyId: ours.id }), { status: 404 });
      await assert.rejects(
        assignPolicy(db, other, { scope: "server", serverId: ourServer.id, policyId: theirs.id }),
        { status: 404 },
        "an assignment to another organisation's server is refused",
      );
      await assert.rejects(removeAssignment(db, other, ourAssignment.id), { status: 404 });
      await assert.rejects(getServerPolicy(db, other.orgId, ourServer.id), { status: 404 });
      await assert.rejects(setServerTags(db, other, ourServer.id, { tags: ["mine"] }), { status: 404 });

      const theirList = await listPolicies(db, other.orgId, { includeArchived: true });
      assert.deepEqual(
        theirList.map((p) => p.name),
        ["Theirs"],
      );
      const theirAudit = await listAuditLog(db, other.orgId);
      assert.ok(theirAudit.entries.every((entry) => entry.target !== ours.id && entry.target !== ourServer.id));
      assert.equal((await getPolicy(db, owner.orgId, ours.id)).versions.length, 1, "our policy is untouched");
      assert.deepEqual((await getServerPolicy(db, owner.orgId, ourServer.id)).tags, []);
    });
  });

  describe("roles", () => {
    it("lets a viewer read but refuses every change with 403", async () => {
      const policy = await createPolicy(db, owner, { name: "Read only" });
      const server = await createServer(db.prisma, owner.orgId, "viewer-visible");
      assert.equal((await getPolicy(db, viewer.orgId, policy.id)).name, "Read only");
      assert.equal((await getServerPolicy(db, viewer.orgId, server.id)).status.state, "pending");
      const refusals = [
        createPolicy(db, viewer, { name: "Mine" }),
        savePolicyVersion(db, viewer, policy.id, { document: cacheOn }),
        updatePolicy(db, viewer, policy.id, { description: "changed" }),
        assignPolicy(db, viewer, { scope: "organization", policyId: policy.id }),
        setServerTags(db, viewer, server.id, { tags: ["x"] }),
      ];
      for (const refusal of refusals) await assert.rejects(refusal, { status: 403 });
      assert.equal((await getPolicy(db, owner.orgId, policy.id)).versions.length, 1);
    });
  });
});
