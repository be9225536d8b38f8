// Member, invitation and role changes land in the audit log with who did them and what changed,
// through the real better-auth endpoints the console's member page calls.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";

type Auth = ReturnType<typeof import("@/modules/auth/lib/auth").createAuth>;

/** Signs up and in; the address is marked confirmed as if the verification link had been opened. */
async function signUp(auth: Auth, db: TestDatabase, email: string) {
  const password = "correct horse battery";
  const created = await auth.api.signUpEmail({ body: { email, password, name: email.slice(0, email.indexOf("@")) } });
  await db.prisma.user.update({ where: { id: created.user.id }, data: { emailVerified: true } });
  const { headers } = await auth.api.signInEmail({ body: { email, password }, returnHeaders: true });
  const cookie = headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { userId: created.user.id, headers: new Headers({ cookie }) };
}

describe("member audit hooks", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let auth: Auth;

  before(async () => {
    db = await createTestDatabase();
    process.env.DATABASE_URL ??= "postgres://unused.test/none"; // createAuth reads the environment; identity tables through db.prisma, audit entries through db
    process.env.BETTER_AUTH_SECRET ??= "a".repeat(32);
    process.env.SPINDLE_MAILBOX_DIR ??= mkdtempSync(join(tmpdir(), "spindle-member-audit-"));
    const { createAuth } = await import("@/modules/auth/lib/auth");
    auth = createAuth(db.prisma, db);
  });
  after(() => db?.drop());

  it("records the acting user for invitations, role changes and removals", async () => {
    const owner = await signUp(auth, db, "owner@example.com");
    const org = await auth.api.createOrganization({ headers: owner.headers, body: { name: "Audited", slug: "audited" } });
    assert.ok(org);
    const invitation = await auth.api.createInvitation({
      headers: owner.headers,
      body: { email: "new@example.com", role: "viewer", organizationId: org.id },
    });
    const invitee = await signUp(auth, db, "new@example.com");
    await auth.api.acceptInvitation({ headers: invitee.headers, body: { invitationId: invitation.id } });
    const member = await db.prisma.member.findFirstOrThrow({ where: { organizationId: org.id, userId: invitee.userId } });

    await auth.api.updateMemberRole({ headers: owner.headers, body: { organizationId: org.id, memberId: member.id, role: "admin" } });
    await auth.api.removeMember({ headers: owner.headers, body: { organizationId: org.id, memberIdOrEmail: member.id } });
    const second = await auth.api.createInvitation({
      headers: owner.headers,
      body: { email: "later@example.com", role: "viewer", organizationId: org.id },
    });
    await auth.api.cancelInvitation({ headers: owner.headers, body: { invitationId: second.id } });

    const ownerMember = await db.prisma.member.findFirstOrThrow({ where: { organizationId: org.id, userId: owner.userId } });
    const rows = await db.prisma.auditLog.findMany({ where: { orgId: org.id }, orderBy: { id: "asc" } });
    assert.deepEqual(
      rows.map((r) => [r.action, r.target, r.actorId, r.details]),
      [
        ["member.added", ownerMember.id, owner.userId, { email: "owner@example.com", role: "owner" }],
        ["invitation.created", invitation.id, owner.userId, { email: "new@example.com", role: "viewer" }],
        ["invitation.accepted", invitation.id, invitee.userId, { email: "new@example.com", role: "viewer" }],
        ["member.role_changed", member.id, owner.userId, { email: "new@example.com", from: "viewer", role: "admin" }],
        ["member.removed", member.id, owner.userId, { email: "new@example.com", role: "admin" }],
        ["invitation.created", second.id, owner.userId, { email: "later@example.com", role: "viewer" }],
        ["invitation.cancelled", second.id, owner.userId, { email: "later@example.com" }],
      ],
    );
  });

  it("records no actor when a change is made outside a signed-in request", async () => {
    const owner = await signUp(auth, db, "solo@example.com");
    const org = await auth.api.createOrganization({ headers: owner.headers, body: { name: "Server side", slug: "server-side" } });
    assert.ok(org);
    const other = await signUp(auth, db, "added@example.com");
    const added = await auth.api.addMember({ body: { userId: other.userId, role: "viewer", organizationId: org.id } });
    assert.ok(added);
    const row = await db.prisma.auditLog.findFirstOrThrow({ where: { orgId: org.id, action: "member.added", target: added.id } });
    assert.deepEqual([row.target, row.actorId], [added.id, null]);
  });
});
