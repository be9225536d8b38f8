// Sign-ins through better-auth against a real database: success and failure audited in the
// user's organisations, an organisation's MFA requirement and SSO enforcement judged on how each
// session was opened, owners' break-glass password, and an admin signing a member out.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { useConsoleEnvironment } from "@/test-support/console-env";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import type { OrgContext } from "../types/context";

const password = "correct horse battery";

describe("sign-in rules", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let auth: typeof import("./auth").auth;
  let resolveOrgContext: typeof import("./org-context").resolveOrgContext;
  let orgId: string;
  let owner: { userId: string; headers: Headers };
  let viewer: { userId: string; headers: Headers; email: string };

  async function person(name: string, role: "owner" | "admin" | "viewer" | null) {
    const email = `${name}-${randomUUID().slice(0, 6)}@acme.test`;
    const created = await auth().api.signUpEmail({ body: { name, email, password } });
    await db.prisma.user.update({ where: { id: created.user.id }, data: { emailVerified: true } });
    if (role && orgId) await db.prisma.member.create({ data: { id: randomUUID(), organizationId: orgId, userId: created.user.id, role } });
    return { userId: created.user.id, email, headers: await signIn(email) };
  }

  async function signIn(email: string, secret = password) {
    const { headers } = await auth().api.signInEmail({
      body: { email, password: secret },
      returnHeaders: true,
      headers: new Headers({ "user-agent": "test browser" }),
    });
    return new Headers({
      cookie: headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; "),
    });
  }

  before(async () => {
    db = await createTestDatabase();
    useConsoleEnvironment(db);
    auth = (await import("./auth")).auth;
    resolveOrgContext = (await import("./org-context")).resolveOrgContext;
    const first = await person("olive", null);
    const org = await auth().api.createOrganization({
      headers: first.headers,
      body: { name: "Acme", slug: `acme-${randomUUID().slice(0, 6)}` },
    });
    orgId = org!.id;
    owner = first;
    viewer = await person("vic", "viewer");
  });
  after(() => db?.drop());

  it("audits sign-ins and failed sign-ins in the person's organisations, and nothing for an unknown address", async () => {
    await assert.rejects(signIn(viewer.email, "wrong password!"), { statusCode: 401 });
    await assert.rejects(signIn("nobody@acme.test"), { statusCode: 401 });
    await signIn(viewer.email);
    const rows = await db.prisma.auditLog.findMany({ where: { orgId, action: { startsWith: "auth." } }, orderBy: { id: "asc" } });
    const failed = rows.find((r) => r.action === "auth.sign_in_failed");
    assert.deepEqual(failed?.details, { email: viewer.email, reason: "wrong password", address: null });
    assert.equal(failed?.actorId, null);
    const signedIn = rows.filter((r) => r.action === "auth.signed_in" && r.actorId === viewer.userId).at(-1);
    assert.deepEqual(signedIn?.details, { email: viewer.email, method: "password", address: null, userAgent: "test browser" });
    assert.ok(!JSON.stringify(rows.map((r) => r.details)).includes("nobody@acme.test"));
  });

  it("holds back a password session without MFA when the organisation requires it", async () => {
    const { setRequireMfa } = await import("@/modules/sso/lib/sso-settings");
    const ownerContext = (await resolveOrgContext(owner.headers)) as { kind: "ok"; context: OrgContext };
    await assert.rejects(setRequireMfa(db, ownerContext.context, true), { status: 409, message: /lock you out/ });
    await db.prisma.user.update({ where: { id: owner.userId }, data: { twoFactorEnabled: true } });
    await setRequireMfa(db, ownerContext.context, true);
    assert.equal((await resolveOrgContext(viewer.headers)).kind, "mfa-required");
    assert.equal((await resolveOrgContext(owner.headers)).kind, "ok", "the owner has MFA");
    await db.prisma.session.updateMany({ where: { userId: viewer.userId }, data: { signInMethod: `sso:org-${orgId}` } });
    assert.equal((await resolveOrgContext(viewer.headers)).kind, "ok", "a single sign-on session relies on the identity provider");
    await db.prisma.session.updateMany({ where: { userId: viewer.userId }, data: { signInMethod: "password" } });
    await db.prisma.user.update({ where: { id: viewer.userId }, data: { twoFactorEnabled: true } });
    assert.equal((await resolveOrgContext(viewer.headers)).kind, "ok");
    await setRequireMfa(db, ownerContext.context, false);
    assert.equal(
      await db.prisma.auditLog.count({ where: { orgId, action: { in: ["organization.mfa_required", "organization.mfa_not_required"] } } }),
      2,
    );
  });

  it("enforces single sign-on on members but not owners, at sign-in and on open sessions", async () => {
    const providerId = `org-${orgId}`;
    // With two-factor on, the password alone opens no session: the refusal would come after the code.
    await db.prisma.user.update({ where: { id: viewer.userId }, data: { twoFactorEnabled: false } });
    await db.prisma.ssoProvider.create({
      data: { id: randomUUID(), issuer: "https://idp.acme.test", providerId, organizationId: orgId, domain: "acme.test", enforced: true },
    });
    assert.deepEqual(await resolveOrgContext(viewer.headers), {
      kind: "sso-required",
      orgName: "Acme",
      orgSlug: (await db.prisma.organization.findUniqueOrThrow({ where: { id: orgId } })).slug,
    });
    assert.equal((await resolveOrgContext(owner.headers)).kind, "ok", "owners keep their password, the way back in");
    await assert.rejects(
      signIn(viewer.email),
      (error: { statusCode: number; body: { code: string; message: string } }) =>
        error.statusCode === 403 && error.body.code === "SSO_REQUIRED" && /Acme requires single sign-on/.test(error.body.message),
    );
    const refused = await db.prisma.auditLog.findFirst({
      where: { orgId, action: "auth.sign_in_failed", actorId: viewer.userId },
      orderBy: { id: "desc" },
    });
    assert.equal((refused?.details as { reason?: string } | undefined)?.reason, "single sign-on required");
    await db.prisma.session.updateMany({ where: { userId: viewer.userId }, data: { signInMethod: `sso:${providerId}` } });
    assert.equal((await resolveOrgContext(viewer.headers)).kind, "ok", "a session through the organisation's own provider");
    await db.prisma.session.updateMany({ where: { userId: viewer.userId }, data: { signInMethod: "sso:org-someone-else" } });
    assert.equal((await resolveOrgContext(viewer.headers)).kind, "sso-required", "another organisation's provider does not count");
    await db.prisma.ssoProvider.deleteMany({ where: { organizationId: orgId } });
  });

  it("mails a notice of a sign-in from a new browser, and of a password change, and audits the change", async () => {
    const mailbox = process.env.SPINDLE_MAILBOX_DIR!;
    const kinds = (kind: string, to: string) =>
      (existsSync(mailbox) ? readdirSync(mailbox) : []).filter((name) => name.includes(`-${kind}-${to}-`));
    const arrived = async (kind: string, to: string, count: number) => {
      for (let i = 0; i < 200 && kinds(kind, to).length < count; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(kinds(kind, to).length, count, `${count} ${kind} message(s) to ${to}`);
    };
    const fresh = await person("nia", "viewer");
    await signIn(fresh.email);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(kinds("new-sign-in", fresh.email).length, 0, "a new account's first sign-ins are not news");
    await db.prisma.user.update({ where: { id: fresh.userId }, data: { createdAt: new Date(Date.now() - 86_400_000) } });
    const { headers } = await auth().api.signInEmail({
      body: { email: fresh.email, password },
      returnHeaders: true,
      headers: new Headers({ "user-agent": "another browser" }),
    });
    await arrived("new-sign-in", fresh.email, 1);
    await signIn(fresh.email);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(kinds("new-sign-in", fresh.email).length, 1, "a browser already signed in is not new");

    const cookie = new Headers({
      cookie: headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; "),
    });
    await auth().api.changePassword({
      headers: cookie,
      body: { currentPassword: password, newPassword: `${password} 2`, revokeOtherSessions: true },
    });
    await arrived("password-changed", fresh.email, 1);
    assert.equal(await db.prisma.auditLog.count({ where: { orgId, action: "auth.password_changed", actorId: fresh.userId } }), 1);
  });

  it("lets an owner or admin sign a member out of every session, and only an owner sign out an owner", async () => {
    const { signOutMember } = await import("@/modules/members/lib/sign-out-member");
    const admin = await person("ada", "admin");
    const adminContext = ((await resolveOrgContext(admin.headers)) as { kind: "ok"; context: OrgContext }).context;
    const viewerMember = await db.prisma.member.findFirstOrThrow({ where: { organizationId: orgId, userId: viewer.userId } });
    const ownerMember = await db.prisma.member.findFirstOrThrow({ where: { organizationId: orgId, userId: owner.userId } });
    await assert.rejects(signOutMember(db, adminContext, ownerMember.id), { status: 403 });
    const { signedOutSessions } = await signOutMember(db, adminContext, viewerMember.id);
    assert.ok(signedOutSessions >= 1);
    assert.equal((await resolveOrgContext(viewer.headers)).kind, "signed-out");
    assert.equal(
      await db.prisma.auditLog.count({ where: { orgId, action: "member.signed_out", target: viewerMember.id, actorId: admin.userId } }),
      1,
    );
  });
});
