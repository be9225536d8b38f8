// Bulk actions on a real database, as the console's role: what each changes and audits, the
// preview that changes nothing, a selection that changed under the user, viewers refused, and
// another organisation's servers and policies out of reach.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation } from "@/test-support/fixtures";
import { FLEET_NOW, seedFleet } from "@/test-support/fleet-fixtures";
import { runBulkAction, type BulkActor } from "./bulk-actions";

describe("bulk actions", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: BulkActor;
  let viewer: BulkActor;
  let other: BulkActor;
  let ids: Map<string, string>;
  let otherIds: Map<string, string>;

  const id = (hostname: string) => ids.get(hostname)!;
  const tagsOf = async (hostname: string) =>
    (await db.pool.query<{ tags: string[] }>("SELECT tags FROM servers WHERE id = $1", [id(hostname)])).rows[0]!.tags;
  const audit = async (bulkId: string) =>
    (
      await db.pool.query<{ action: string; target: string; details: Record<string, unknown> }>(
        "SELECT action, target, details FROM audit_log WHERE details->'bulk'->>'id' = $1 ORDER BY details->>'hostname'",
        [bulkId],
      )
    ).rows;

  before(async () => {
    db = await createTestDatabase();
    const a = await createOrganisation(db.prisma, "Alpha");
    const b = await createOrganisation(db.prisma, "Beta");
    owner = { orgId: a.orgId, userId: a.userId, role: "owner" };
    viewer = { orgId: a.orgId, userId: a.userId, role: "viewer" };
    other = { orgId: b.orgId, userId: b.userId, role: "owner" };
    ids = await seedFleet(db.pool, a.orgId, [
      { hostname: "web-1", lastSeenSecondsAgo: 5, tags: ["prod"] },
      { hostname: "web-2", lastSeenSecondsAgo: 5, tags: ["frontend", "prod"] },
      { hostname: "web-3", lastSeenSecondsAgo: 500 },
      { hostname: "full", lastSeenSecondsAgo: 500, tags: Array.from({ length: 32 }, (_, i) => `t${String(i).padStart(2, "0")}`) },
    ]);
    otherIds = await seedFleet(db.pool, b.orgId, [{ hostname: "theirs", lastSeenSecondsAgo: 5, tags: ["prod"] }]);
  });
  after(() => db?.drop());

  it("previews a tag without changing anything, then tags and audits each changed server", async () => {
    const target = { serverIds: [id("web-1"), id("web-2"), id("web-3")] };
    const preview = await runBulkAction(db, owner, { action: "tag", tag: "frontend", target, preview: true }, FLEET_NOW);
    assert.deepEqual([preview.changed, preview.unchanged, preview.bulkId], [2, 1, null]);
    assert.deepEqual(await tagsOf("web-1"), ["prod"]);
    const done = await runBulkAction(db, owner, { action: "tag", tag: "Frontend", target }, FLEET_NOW);
    assert.deepEqual([done.servers, done.changed, done.unchanged], [3, 2, 1]);
    assert.deepEqual(await tagsOf("web-1"), ["frontend", "prod"]);
    assert.deepEqual(await tagsOf("web-3"), ["frontend"]);
    const entries = await audit(done.bulkId!);
    assert.deepEqual(
      entries.map((e) => [e.action, e.details.hostname, e.details.before, e.details.after]),
      [
        ["server.tags_changed", "web-1", ["prod"], ["frontend", "prod"]],
        ["server.tags_changed", "web-3", [], ["frontend"]],
      ],
    );
    assert.deepEqual(entries[0]!.details.bulk, { id: done.bulkId, action: "tag", servers: 3 });
  });

  it("untags by filter, and refuses when the matching servers are no longer the number confirmed", async () => {
    await assert.rejects(
      runBulkAction(db, owner, { action: "untag", tag: "frontend", target: { filter: { tag: "frontend" }, expectedCount: 2 } }, FLEET_NOW),
      { status: 409, message: /3 servers match the filters now, not the 2 you confirmed/ },
    );
    assert.deepEqual(await tagsOf("web-2"), ["frontend", "prod"], "nothing changed");
    const done = await runBulkAction(
      db,
      owner,
      { action: "untag", tag: "frontend", target: { filter: { tag: "frontend" }, expectedCount: 3 } },
      FLEET_NOW,
    );
    assert.equal(done.changed, 3);
    assert.deepEqual(await tagsOf("web-2"), ["prod"]);
    const {
      rows: [theirs],
    } = await db.pool.query<{ tags: string[] }>("SELECT tags FROM servers WHERE id = $1", [otherIds.get("theirs")]);
    assert.deepEqual(theirs!.tags, ["prod"], "another organisation's server is untouched");
  });

  it("refuses a tag that would give a server more than 32, changing nobody", async () => {
    await assert.rejects(
      runBulkAction(db, owner, { action: "tag", tag: "extra", target: { serverIds: [id("web-1"), id("full")] } }, FLEET_NOW),
      { status: 409, message: /1 server carries 32 tags already \(full\)/ },
    );
    assert.deepEqual(await tagsOf("web-1"), ["prod"]);
  });

  it("assigns a policy: the preview names what it replaces, the assignment replaces it, each server audited", async () => {
    const {
      rows: [old],
    } = await db.pool.query<{ id: string }>("INSERT INTO policies (org_id, name) VALUES ($1, 'old') RETURNING id::text", [owner.orgId]);
    const {
      rows: [policy],
    } = await db.pool.query<{ id: string }>("INSERT INTO policies (org_id, name) VALUES ($1, 'Sample every 5 s') RETURNING id::text", [
      owner.orgId,
    ]);
    await db.pool.query("INSERT INTO policy_assignments (org_id, policy_id, scope, server_id) VALUES ($1, $2, 'server', $3)", [
      owner.orgId,
      old!.id,
      id("web-2"),
    ]);
    const target = { serverIds: [id("web-1"), id("web-2")] };
    const preview = await runBulkAction(db, owner, { action: "assign-policy", policyId: policy!.id, target, preview: true }, FLEET_NOW);
    assert.deepEqual(preview.replaced, [{ serverId: id("web-2"), hostname: "web-2", policy: "old" }]);
    assert.equal(preview.changed, 2);
    const done = await runBulkAction(db, owner, { action: "assign-policy", policyId: policy!.id, target }, FLEET_NOW);
    // Two servers go through a rollout by default, but these policies have no version, so no
    // server's effective policy changes and there is nothing to roll out (modules/rollouts tests rollouts).
    assert.deepEqual(done.delivery, { mode: "now", reason: "no server's effective policy changes, so there is nothing to roll out" });
    const { rows } = await db.pool.query<{ server_id: string; policy_id: string }>(
      "SELECT server_id::text, policy_id::text FROM policy_assignments WHERE scope = 'server' ORDER BY server_id",
    );
    assert.deepEqual(
      rows.filter((r) => target.serverIds.includes(r.server_id)).map((r) => r.policy_id),
      [policy!.id, policy!.id],
    );
    assert.deepEqual(
      (await audit(done.bulkId!)).map((e) => [e.action, e.target, e.details.target, e.details.replaced]),
      [
        ["policy.assigned", policy!.id, "server web-1", null],
        ["policy.assigned", policy!.id, "server web-2", "old"],
      ],
    );
    const again = await runBulkAction(db, owner, { action: "assign-policy", policyId: policy!.id, target }, FLEET_NOW);
    assert.deepEqual([again.changed, again.unchanged, (await audit(again.bulkId!)).length], [0, 2, 0]);
    await db.pool.query("UPDATE policies SET archived_at = now() WHERE id = $1", [old!.id]);
    await assert.rejects(runBulkAction(db, owner, { action: "assign-policy", policyId: old!.id, target }, FLEET_NOW), {
      status: 409,
      message: /archived/,
    });
  });

  it("revokes the agents and audits each; already revoked ones are unchanged", async () => {
    const target = { serverIds: [id("web-3"), id("full")] };
    const done = await runBulkAction(db, owner, { action: "revoke", target }, FLEET_NOW);
    assert.deepEqual([done.changed, done.unchanged], [2, 0]);
    const { rows } = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM agents WHERE server_id = ANY($1::uuid[]) AND revoked_at IS NOT NULL",
      [target.serverIds],
    );
    assert.equal(rows[0]!.n, 2);
    assert.deepEqual(
      (await audit(done.bulkId!)).map((e) => e.action),
      ["server.revoked", "server.revoked"],
    );
    assert.deepEqual((await runBulkAction(db, owner, { action: "revoke", target }, FLEET_NOW)).unchanged, 2);
  });

  it("refuses viewers every action, even a preview", async () => {
    const target = { serverIds: [id("web-1")] };
    for (const input of [
      { action: "tag", tag: "x", target },
      { action: "untag", tag: "prod", target },
      { action: "revoke", target, preview: true },
      { action: "assign-policy", policyId: "00000000-0000-4000-8000-000000000000", target },
    ] as const) {
      await assert.rejects(runBulkAction(db, viewer, input, FLEET_NOW), {
        status: 403,
        message: /Your role \(viewer\) can read the fleet but not change it/,
      });
    }
    assert.deepEqual(await tagsOf("web-1"), ["prod"]);
  });

  it("cannot reach another organisation's servers or policies", async () => {
    await assert.rejects(
      runBulkAction(db, owner, { action: "tag", tag: "mine", target: { serverIds: [id("web-1"), otherIds.get("theirs")!] } }, FLEET_NOW),
      { status: 404, message: /1 of the servers does not exist in your organisation/ },
    );
    assert.deepEqual(await tagsOf("web-1"), ["prod"], "all or nothing");
    await assert.rejects(runBulkAction(db, other, { action: "revoke", target: { serverIds: [id("web-1")] } }, FLEET_NOW), { status: 404 });
    const {
      rows: [policy],
    } = await db.pool.query<{ id: string }>("SELECT id::text FROM policies WHERE name = 'Sample every 5 s'");
    await assert.rejects(
      runBulkAction(
        db,
        other,
        { action: "assign-policy", policyId: policy!.id, target: { serverIds: [otherIds.get("theirs")!] } },
        FLEET_NOW,
      ),
      { status: 404, message: /This policy does not exist/ },
    );
    await assert.rejects(runBulkAction(db, owner, { action: "revoke", target: { serverIds: ["not-a-uuid"] } }, FLEET_NOW), { status: 404 });
    const byFilter = await runBulkAction(
      db,
      other,
      { action: "tag", tag: "theirs", target: { filter: { tag: "prod" }, expectedCount: 1 }, preview: true },
      FLEET_NOW,
    );
    assert.equal(byFilter.servers, 1, "a filter matches the caller's own servers only");
  });
});
