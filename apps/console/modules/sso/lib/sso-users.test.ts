// Who single sign-on may sign in as, against a real database: the allowed domain (refusals
// audited), identities already linked, new people, and existing accounts, linked only when the
// organisation manages them alone.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createOrganisation } from "@/test-support/fixtures";
import { useConsoleEnvironment } from "@/test-support/console-env";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { resolveSsoUser } from "./resolve-sso-user";

describe("single sign-on users", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let providerId: string;

  async function user(email: string, memberOf: string[]) {
    const id = `u-${randomUUID().slice(0, 8)}`;
    await db.prisma.user.create({ data: { id, name: email, email, emailVerified: true } });
    for (const organizationId of memberOf)
      await db.prisma.member.create({ data: { id: `m-${randomUUID().slice(0, 8)}`, organizationId, userId: id, role: "viewer" } });
    return id;
  }

  before(async () => {
    db = await createTestDatabase();
    useConsoleEnvironment(db);
    const acme = await createOrganisation(db.prisma, "Acme");
    orgId = acme.orgId;
    providerId = `org-${orgId}`;
    await db.prisma.ssoProvider.create({
      data: {
        id: randomUUID(),
        issuer: "https://idp.acme.test",
        providerId,
        organizationId: orgId,
        domain: "acme.test",
        userId: acme.userId,
      },
    });
  });
  after(() => db?.drop());

  it("refuses an address outside the allowed domain and audits it in the organisation", async () => {
    const decision = await resolveSsoUser(db.prisma, db, { providerId, accountId: "sub-eve", email: "eve@evil.test" });
    assert.deepEqual(decision, {
      action: "reject",
      code: "domain_not_allowed",
      message: "Single sign-on for this organisation accepts only @acme.test addresses.",
    });
    const look = await resolveSsoUser(db.prisma, db, { providerId, accountId: "sub-eve2", email: "eve@evilacme.test" });
    assert.equal(look.action, "reject", "a domain that merely ends with the allowed one");
    const rows = await db.prisma.auditLog.findMany({ where: { orgId, action: "auth.sso_refused" } });
    assert.deepEqual(
      rows.map((r) => r.details),
      [
        { email: "eve@evil.test", reason: "not in acme.test" },
        { email: "eve@evilacme.test", reason: "not in acme.test" },
      ],
    );
  });

  it("lets a new person of the domain in, and an identity already linked", async () => {
    assert.deepEqual(await resolveSsoUser(db.prisma, db, { providerId, accountId: "sub-ana", email: "Ana@ACME.test" }), {
      action: "continue",
    });
    const linked = await user("linked@acme.test", [orgId]);
    await db.prisma.account.create({ data: { id: randomUUID(), userId: linked, accountId: "sub-linked", providerId } });
    assert.deepEqual(await resolveSsoUser(db.prisma, db, { providerId, accountId: "sub-linked", email: "linked@acme.test" }), {
      action: "continue",
    });
  });

  it("links an existing account only when this organisation alone has it", async () => {
    const onlyHere = await user("bo@acme.test", [orgId]);
    assert.deepEqual(await resolveSsoUser(db.prisma, db, { providerId, accountId: "sub-bo", email: "bo@acme.test" }), {
      action: "link",
      userId: onlyHere,
      profile: "preserve",
    });
    const other = await createOrganisation(db.prisma, "Other");
    await user("cy@acme.test", [orgId, other.orgId]);
    const refused = await resolveSsoUser(db.prisma, db, { providerId, accountId: "sub-cy", email: "cy@acme.test" });
    assert.equal(refused.action, "reject");
    assert.equal((refused as { code: string }).code, "account_in_other_organisations");
    await user("dee@acme.test", [other.orgId]);
    assert.equal(
      (await resolveSsoUser(db.prisma, db, { providerId, accountId: "sub-dee", email: "dee@acme.test" })).action,
      "reject",
      "another organisation's member with an address of this domain is not taken over",
    );
  });
});
