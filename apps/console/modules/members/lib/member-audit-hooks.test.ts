// Member, invitation and role changes land in the audit log with who and what.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation } from "@/test-support/fixtures";
import { memberAuditHooks } from "./member-audit-hooks";

describe("member audit hooks", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let org: { orgId: string; userId: string };

  before(async () => {
    db = await createTestDatabase();
    org = await createOrganisation(db.prisma, "Audited");
  });
  after(() => db?.drop());

  it("records added, re-roled and removed members and invitations", async () => {
    const hooks = memberAuditHooks(db);
    const member = { id: "m-1", role: "viewer", userId: "u-2", organizationId: org.orgId };
    const user = { id: "u-2", email: "new@example.com" };
    const invitation = { id: "i-1", email: "new@example.com", role: "viewer", organizationId: org.orgId };
    await hooks.afterCreateInvitation({ invitation, inviter: { id: org.userId } });
    await hooks.afterAcceptInvitation({ invitation, member, user: { id: org.userId, email: "new@example.com" } });
    await hooks.afterUpdateMemberRole({ member: { ...member, role: "admin" }, user, previousRole: "viewer" });
    await hooks.afterRemoveMember({ member: { ...member, role: "admin" }, user });
    await hooks.afterCancelInvitation({ invitation: { ...invitation, id: "i-2" }, cancelledBy: { id: org.userId } });
    const rows = await db.prisma.auditLog.findMany({ where: { orgId: org.orgId }, orderBy: { id: "asc" } });
    assert.deepEqual(rows.map((r) => [r.action, r.target, r.actorId, r.details]), [
      ["invitation.created", "i-1", org.userId, { email: "new@example.com", role: "viewer" }],
      ["invitation.accepted", "i-1", org.userId, { email: "new@example.com", role: "viewer" }],
      ["member.role_changed", "m-1", null, { email: "new@example.com", from: "viewer", role: "admin" }],
      ["member.removed", "m-1", null, { email: "new@example.com", role: "admin" }],
      ["invitation.cancelled", "i-2", org.userId, { email: "new@example.com" }],
    ]);
  });
});
