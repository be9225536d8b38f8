// An organisation's single sign-on settings through better-auth's sso plugin, against a real
// database: saved by the owner's session with the issuer's discovery read first, the client
// secret sealed at rest and kept when not re-entered, private issuers refused unless trusted,
// removal, and every change audited.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { useConsoleEnvironment } from "@/test-support/console-env";
import { discoveryServer } from "@/test-support/oidc-discovery";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import type { OrgContext } from "@/modules/auth/types/context";
import { ClientSecretBox, clientSecretBinding } from "./sealed-client-secret";

describe("single sign-on settings", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let idp: { issuer: string; close(): Promise<void> };
  let headers: Headers;
  let owner: OrgContext;
  let settings: typeof import("./sso-settings");

  before(async () => {
    db = await createTestDatabase();
    idp = await discoveryServer();
    useConsoleEnvironment(db, { SPINDLE_SSO_TRUSTED_ISSUERS: idp.issuer });
    const { auth } = await import("@/modules/auth/lib/auth");
    settings = await import("./sso-settings");
    const email = `owner-${randomUUID().slice(0, 6)}@acme.test`;
    const created = await auth().api.signUpEmail({ body: { name: "Olive", email, password: "correct horse battery" } });
    await db.prisma.user.update({ where: { id: created.user.id }, data: { emailVerified: true } });
    const signedIn = await auth().api.signInEmail({ body: { email, password: "correct horse battery" }, returnHeaders: true });
    headers = new Headers({
      cookie: signedIn.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; "),
    });
    const org = await auth().api.createOrganization({ headers, body: { name: "Acme", slug: `acme-${randomUUID().slice(0, 6)}` } });
    owner = { userId: created.user.id, userName: "Olive", userEmail: email, orgId: org!.id, orgName: "Acme", role: "owner" };
  });
  after(async () => {
    await idp?.close();
    await db?.drop();
  });

  it("saves the provider with its discovered endpoints and seals the client secret", async () => {
    const saved = await settings.saveSsoSettings(db, owner, headers, {
      issuer: idp.issuer,
      clientId: "spindle",
      clientSecret: "first-secret",
      domain: "acme.test",
      defaultRole: "admin",
      enforced: true,
    });
    assert.deepEqual(
      { ...saved, linkedAccounts: undefined },
      {
        providerId: `org-${owner.orgId}`,
        issuer: idp.issuer,
        clientId: "spindle",
        domain: "acme.test",
        defaultRole: "admin",
        enforced: true,
        redirectUri: `http://localhost:3000/api/auth/sso/callback/org-${owner.orgId}`,
        linkedAccounts: undefined,
      },
    );
    const row = await db.prisma.ssoProvider.findUniqueOrThrow({ where: { organizationId: owner.orgId } });
    assert.doesNotMatch(row.oidcConfig ?? "", /first-secret/);
    const config = JSON.parse(row.oidcConfig!);
    assert.equal(config.tokenEndpoint, `${idp.issuer}/token`);
    assert.equal(
      new ClientSecretBox(process.env.BETTER_AUTH_SECRET!).open(clientSecretBinding(row.providerId), config.clientSecret),
      "first-secret",
    );
  });

  it("keeps the stored secret when a change leaves it out", async () => {
    await settings.saveSsoSettings(db, owner, headers, {
      issuer: idp.issuer,
      clientId: "spindle",
      domain: "acme.test",
      defaultRole: "viewer",
      enforced: false,
    });
    const row = await db.prisma.ssoProvider.findUniqueOrThrow({ where: { organizationId: owner.orgId } });
    assert.deepEqual([row.defaultRole, row.enforced], ["viewer", false]);
    assert.equal(
      new ClientSecretBox(process.env.BETTER_AUTH_SECRET!).open(
        clientSecretBinding(row.providerId),
        JSON.parse(row.oidcConfig!).clientSecret,
      ),
      "first-secret",
    );
  });

  it("refuses an identity provider on a private network the operator did not list", async () => {
    await assert.rejects(
      settings.saveSsoSettings(db, owner, headers, {
        issuer: "http://10.9.8.7:8080",
        clientId: "x",
        clientSecret: "y",
        domain: "acme.test",
        defaultRole: "viewer",
        enforced: false,
      }),
      { status: 422, detail: /SPINDLE_SSO_TRUSTED_ISSUERS/ },
    );
    await assert.rejects(
      settings.saveSsoSettings(db, owner, headers, {
        issuer: "https://127.0.0.1:9",
        clientId: "x",
        clientSecret: "y",
        domain: "acme.test",
        defaultRole: "viewer",
        enforced: false,
      }),
      { status: 422 },
    );
  });

  it("removes single sign-on, and audits every change", async () => {
    assert.deepEqual(await settings.removeSsoSettings(db, owner, headers), { removed: true });
    assert.equal(await settings.getSsoSettings(owner.orgId), null);
    assert.deepEqual(await settings.removeSsoSettings(db, owner, headers), { removed: false });
    const actions = (
      await db.prisma.auditLog.findMany({ where: { orgId: owner.orgId, action: { startsWith: "sso." } }, orderBy: { id: "asc" } })
    ).map((r) => r.action);
    assert.deepEqual(actions, ["sso.configured", "sso.updated", "sso.removed"]);
  });
});
