// Revoke, allow re-enrolment and remove: audited, scoped to the caller's organisation, and run
// under row-level security as spindle_console.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { can } from "@/modules/auth/lib/access";
import { allowReenrolment, removeServer, revokeServer } from "./server-lifecycle";

/** The channel the database announces ended access on (migration 20261124170000_agent_access_revoked_trigger). */
const AGENT_ACCESS_REVOKED_CHANNEL = "spindle_agent_access_revoked";

describe("server lifecycle", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgA: { orgId: string; userId: string };
  let orgB: { orgId: string; userId: string };

  async function serverWithAgent(orgId: string, hostname: string) {
    const server = await createServer(db.prisma, orgId, hostname, new Date());
    await db.prisma.agent.create({ data: { orgId, serverId: server.id, credentialHash: Buffer.from(hostname.padEnd(32, "x")) } });
    return server;
  }

  before(async () => {
    db = await createTestDatabase();
    orgA = await createOrganisation(db.prisma, "Alpha");
    orgB = await createOrganisation(db.prisma, "Beta");
  });
  after(() => db?.drop());

  it("lets owners and admins revoke and remove, and viewers neither", () => {
    assert.ok(can("owner", { server: ["revoke", "delete"] }));
    assert.ok(can("admin", { server: ["revoke", "delete"] }));
    assert.ok(!can("viewer", { server: ["revoke"] }));
    assert.ok(!can("viewer", { server: ["delete"] }));
  });

  it("revokes once, audits it, and clears an allowed re-enrolment", async () => {
    const server = await serverWithAgent(orgA.orgId, "alpha-revoke");
    const allowed = await allowReenrolment(db, orgA, server.id);
    assert.ok(allowed.reenrollmentAllowedUntil);
    const revoked = await revokeServer(db, orgA, server.id);
    assert.ok(revoked.revokedAt);
    assert.equal(revoked.reenrollmentAllowedUntil, null);
    await revokeServer(db, orgA, server.id);
    const audit = await db.prisma.auditLog.findMany({ where: { orgId: orgA.orgId, target: server.id }, orderBy: { id: "asc" } });
    assert.deepEqual(
      audit.map((a) => [a.action, a.actorId]),
      [
        ["server.reenrolment_allowed", orgA.userId],
        ["server.revoked", orgA.userId],
      ],
    );
  });

  it("announces a revocation and a removal to the gateways, once each, at commit", async () => {
    const listener = await db.pool.connect();
    const heard: unknown[] = [];
    let wake = () => {};
    listener.on("notification", (message) => {
      if (message.channel === AGENT_ACCESS_REVOKED_CHANNEL) heard.push(JSON.parse(message.payload ?? "null"));
      wake();
    });
    const next = (count: number) =>
      new Promise<void>((resolve) => {
        wake = () => heard.length >= count && resolve();
        wake();
      });
    try {
      await listener.query(`LISTEN ${AGENT_ACCESS_REVOKED_CHANNEL}`);
      const revoked = await serverWithAgent(orgA.orgId, "alpha-announce-revoke");
      const removed = await serverWithAgent(orgA.orgId, "alpha-announce-remove");
      const agentOf = async (serverId: string) => (await db.prisma.agent.findUniqueOrThrow({ where: { serverId } })).id;
      const expected = [
        { agentId: await agentOf(revoked.id), serverId: revoked.id },
        { agentId: await agentOf(removed.id), serverId: removed.id },
      ];
      await revokeServer(db, orgA, revoked.id);
      await revokeServer(db, orgA, revoked.id); // already revoked: nothing new to announce
      await assert.rejects(revokeServer(db, orgB, removed.id), { status: 404 }); // another org's: nothing
      await removeServer(db, orgA, removed.id);
      await next(2);
      // A marker after the last change: every notification sent before it has arrived by now.
      await db.pool.query(`SELECT pg_notify('${AGENT_ACCESS_REVOKED_CHANNEL}', '"end"')`);
      await next(3);
      assert.deepEqual(heard, [...expected, "end"]);
    } finally {
      await listener.query("UNLISTEN *");
      listener.release();
    }
  });

  it("answers 404 for another organisation's server and changes nothing", async () => {
    const server = await serverWithAgent(orgA.orgId, "alpha-foreign");
    await assert.rejects(revokeServer(db, orgB, server.id), { status: 404 });
    await assert.rejects(allowReenrolment(db, orgB, server.id), { status: 404 });
    await assert.rejects(removeServer(db, orgB, server.id), { status: 404 });
    const agent = await db.prisma.agent.findUniqueOrThrow({ where: { serverId: server.id } });
    assert.equal(agent.revokedAt, null);
    assert.equal(agent.reenrollmentAllowedUntil, null);
  });

  it("removes the server and its agent, keeping the audit entry", async () => {
    const server = await serverWithAgent(orgA.orgId, "alpha-remove");
    assert.deepEqual(await removeServer(db, orgA, server.id), { removed: server.id });
    assert.equal(await db.prisma.server.count({ where: { id: server.id } }), 0);
    assert.equal(await db.prisma.agent.count({ where: { serverId: server.id } }), 0);
    assert.equal(await db.prisma.auditLog.count({ where: { action: "server.removed", target: server.id } }), 1);
  });
});
