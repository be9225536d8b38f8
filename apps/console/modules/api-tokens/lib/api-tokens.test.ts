// API tokens against a real database and better-auth's api-key plugin: shown once and hashed at
// rest, at most the creator's role (and demoted or cut off with them), revocation by whom, audit
// rows, expiry, the per-token rate limit, and the tenant wall from a token.
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { useConsoleEnvironment } from "@/test-support/console-env";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import type { OrgContext } from "@/modules/auth/types/context";

describe("API tokens", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: OrgContext;
  let admin: OrgContext;
  let viewer: OrgContext;
  let rival: OrgContext;
  let tokens: typeof import("./api-tokens");
  let resolveFrom: (token: string, clientAddress: string | null) => Promise<OrgContext>;
  let resolve: (token: string) => Promise<OrgContext>;

  async function member(orgId: string, orgName: string, role: "admin" | "viewer"): Promise<OrgContext> {
    const suffix = randomUUID().slice(0, 8);
    const user = await db.prisma.user.create({
      data: { id: `${role}-${suffix}`, name: `${role} ${suffix}`, email: `${role}-${suffix}@example.com`, emailVerified: true },
    });
    await db.prisma.member.create({ data: { id: `m-${suffix}`, organizationId: orgId, userId: user.id, role } });
    return { userId: user.id, userName: user.name, userEmail: user.email, orgId, orgName, role };
  }

  async function refusal(token: string) {
    return resolve(token).then(
      () => assert.fail("the token was accepted"),
      (error: { status: number; detail?: string; headers?: Record<string, string> }) => error,
    );
  }

  before(async () => {
    db = await createTestDatabase();
    useConsoleEnvironment(db, { SPINDLE_API_TOKEN_RATE_LIMIT: "5" });
    tokens = await import("./api-tokens");
    resolveFrom = (await import("./token-context")).resolveTokenContext;
    resolve = (token) => resolveFrom(token, "192.0.2.10");
    const acme = await createOrganisation(db.prisma, "Acme");
    owner = { userId: acme.userId, userName: "Acme owner", userEmail: "", orgId: acme.orgId, orgName: "Acme", role: "owner" };
    admin = await member(acme.orgId, "Acme", "admin");
    viewer = await member(acme.orgId, "Acme", "viewer");
    const other = await createOrganisation(db.prisma, "Rival");
    rival = { userId: other.userId, userName: "Rival owner", userEmail: "", orgId: other.orgId, orgName: "Rival", role: "owner" };
  });
  after(() => db?.drop());

  it("answers the secret once and keeps only its hash", async () => {
    const created = await tokens.createApiToken(db, owner, { name: "ci", role: "viewer", expiresInDays: 30 });
    assert.match(created.secret, /^spk_[A-Za-z]{48}$/);
    const row = await db.prisma.apikey.findUniqueOrThrow({ where: { id: created.id } });
    assert.notEqual(row.key, created.secret);
    assert.equal(row.key, createHash("sha256").update(created.secret).digest("base64url"));
    assert.equal(row.start, created.secret.slice(0, 8));
    const listed = await tokens.listApiTokens(owner.orgId);
    assert.ok(!JSON.stringify(listed).includes(created.secret), "no list carries the secret");
    assert.equal(listed.find((t) => t.id === created.id)?.lastUsedAt, null);
    await resolve(created.secret);
    assert.ok((await tokens.listApiTokens(owner.orgId)).find((t) => t.id === created.id)?.lastUsedAt, "using it records the last use");
    const audit = await db.prisma.auditLog.findFirst({ where: { orgId: owner.orgId, action: "api_token.created", target: created.id } });
    assert.deepEqual(audit?.details, { name: "ci", role: "viewer", expiresAt: created.expiresAt });
  });

  it("acts with at most its creator's role, now: demoted with them, refused once they left", async () => {
    await assert.rejects(tokens.createApiToken(db, viewer, { name: "sneaky", role: "admin", expiresInDays: 7 }), { status: 403 });
    const byViewer = await tokens.createApiToken(db, viewer, { name: "reports", role: "viewer", expiresInDays: 7 });
    assert.equal((await resolve(byViewer.secret)).role, "viewer");
    const byAdmin = await tokens.createApiToken(db, admin, { name: "terraform", role: "admin", expiresInDays: 7 });
    const acting = await resolve(byAdmin.secret);
    assert.deepEqual([acting.role, acting.userId, acting.orgId, acting.apiToken?.name], ["admin", admin.userId, admin.orgId, "terraform"]);
    await db.prisma.member.updateMany({ where: { userId: admin.userId }, data: { role: "viewer" } });
    assert.equal((await resolve(byAdmin.secret)).role, "viewer", "demoted with its creator");
    await db.prisma.member.deleteMany({ where: { userId: admin.userId } });
    const refused = await refusal(byAdmin.secret);
    assert.equal(refused.status, 401);
    assert.match(refused.detail ?? "", /no longer belongs to the organisation/);
  });

  it("is revoked by its creator or an owner or admin, never by another viewer, and then refused", async () => {
    const ownersToken = await tokens.createApiToken(db, owner, { name: "owner's", role: "admin", expiresInDays: 7 });
    await assert.rejects(tokens.revokeApiToken(db, viewer, ownersToken.id), { status: 403 });
    const viewersToken = await tokens.createApiToken(db, viewer, { name: "viewer's", role: "viewer", expiresInDays: 7 });
    assert.equal((await tokens.revokeApiToken(db, viewer, viewersToken.id)).status, "revoked");
    const revoked = await tokens.revokeApiToken(db, owner, ownersToken.id);
    assert.equal(revoked.status, "revoked");
    assert.ok(revoked.revokedAt);
    assert.equal((await tokens.revokeApiToken(db, owner, ownersToken.id)).status, "revoked", "twice is harmless");
    const refused = await refusal(ownersToken.secret);
    assert.equal(refused.status, 401);
    assert.match(refused.detail ?? "", /revoked/);
    assert.match(refused.headers?.["www-authenticate"] ?? "", /error="invalid_token"/);
    assert.equal(await db.prisma.auditLog.count({ where: { orgId: owner.orgId, action: "api_token.revoked", target: ownersToken.id } }), 1);
  });

  it("stops at its expiry", async () => {
    const created = await tokens.createApiToken(db, owner, { name: "short", role: "viewer", expiresInDays: 1 });
    await db.prisma.apikey.update({ where: { id: created.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const refused = await refusal(created.secret);
    assert.equal(refused.status, 401);
    assert.match(refused.detail ?? "", /expired/);
  });

  it("is limited per token and per minute, with Retry-After", async () => {
    const busy = await tokens.createApiToken(db, owner, { name: "busy", role: "viewer", expiresInDays: 1 });
    const calm = await tokens.createApiToken(db, owner, { name: "calm", role: "viewer", expiresInDays: 1 });
    for (let i = 0; i < 5; i++) await resolve(busy.secret);
    const limited = await refusal(busy.secret);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers?.["retry-after"]) >= 1 && Number(limited.headers?.["retry-after"]) <= 60);
    await resolve(calm.secret);
    // A minute later the window starts again (moved back instead of waited for).
    await db.prisma.apikey.update({ where: { id: busy.id }, data: { rateWindowStartedAt: new Date(Date.now() - 61_000) } });
    await resolve(busy.secret);
  });

  it("limits invalid tokens per client address: one address's guesses never hold back another's", async () => {
    const { FAILED_TOKEN_ATTEMPTS_PER_MINUTE } = await import("./token-guess-limit");
    const good = await tokens.createApiToken(db, owner, { name: "neighbour", role: "viewer", expiresInDays: 1 });
    const guesser = "198.51.100.7";
    const guess = (address: string) =>
      resolveFrom(`spk_${randomUUID().replace(/-/g, "")}`, address).then(
        () => assert.fail("a random token was accepted"),
        (error: { status: number; headers?: Record<string, string> }) => error,
      );
    for (let i = 0; i < FAILED_TOKEN_ATTEMPTS_PER_MINUTE; i++) assert.equal((await guess(guesser)).status, 401);
    const held = await guess(guesser);
    assert.equal(held.status, 429);
    assert.ok(Number(held.headers?.["retry-after"]) >= 1 && Number(held.headers?.["retry-after"]) <= 60);
    // Held back whatever it sends next, even a valid token: it is the guessing that is limited.
    assert.equal(((await resolveFrom(good.secret, guesser).catch((error: { status: number }) => error)) as { status: number }).status, 429);
    // Every other client, behind no proxy or named by a trusted one, keeps its own budget.
    assert.equal((await guess("198.51.100.8")).status, 401);
    assert.equal((await guess("2001:db8::8")).status, 401);
    assert.equal((await resolveFrom(good.secret, "198.51.100.9")).orgId, owner.orgId);
  });

  it("offers the plugins' own key and provider endpoints nowhere over HTTP", async () => {
    const { auth } = await import("@/modules/auth/lib/auth");
    for (const path of [
      "/api-key/create",
      "/api-key/list",
      "/api-key/update",
      "/api-key/delete",
      "/sso/register",
      "/sso/providers",
      "/sso/update-provider",
    ]) {
      const response = await auth().handler(
        new Request(`http://localhost:3000/api/auth${path}`, {
          method: path.endsWith("list") || path.endsWith("providers") ? "GET" : "POST",
          headers: { origin: "http://localhost:3000", "content-type": "application/json" },
          body: path.endsWith("list") || path.endsWith("providers") ? undefined : "{}",
        }),
      );
      assert.equal(response.status, 404, path);
    }
  });

  it("keeps a token inside its organisation", async () => {
    const registry = await import("@/app/api/openapi.json/routes");
    const route = (path: string, method: "GET" | "DELETE") =>
      registry.apiRouteFiles.find((r) => r.path === path)!.module[method] as (r: Request, c: unknown) => Promise<Response>;
    const mine = await createServer(db.prisma, owner.orgId, "acme-db");
    const theirs = await createServer(db.prisma, rival.orgId, "rival-db");
    const rivalToken = await tokens.createApiToken(db, rival, { name: "rival", role: "admin", expiresInDays: 1 });
    const ownersToken = await tokens.createApiToken(db, owner, { name: "acme", role: "admin", expiresInDays: 1 });
    const get = (id: string, token: string) =>
      route("/api/servers/[id]", "GET")(
        new Request(`http://localhost:3000/api/servers/${id}`, { headers: { authorization: `Bearer ${token}` } }),
        { params: Promise.resolve({ id }) },
      );
    assert.equal((await get(mine.id, ownersToken.secret)).status, 200);
    assert.equal((await get(mine.id, rivalToken.secret)).status, 404, "another organisation's server is not there");
    assert.equal((await get(theirs.id, rivalToken.secret)).status, 200);
    const list = await route("/api/servers", "GET")(
      new Request("http://localhost:3000/api/servers", { headers: { authorization: `Bearer ${rivalToken.secret}` } }),
      { params: Promise.resolve({}) },
    );
    assert.deepEqual(
      ((await list.json()) as { servers: { hostname: string }[] }).servers.map((s) => s.hostname),
      ["rival-db"],
    );
    const revoke = await route("/api/api-tokens/[id]", "DELETE")(
      new Request(`http://localhost:3000/api/api-tokens/${ownersToken.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${rivalToken.secret}` },
      }),
      { params: Promise.resolve({ id: ownersToken.id }) },
    );
    assert.equal(revoke.status, 404, "another organisation's token cannot be revoked, or even seen");
    const ownerMember = await db.prisma.member.findFirstOrThrow({ where: { organizationId: owner.orgId, userId: owner.userId } });
    const signOut = registry.apiRouteFiles.find((r) => r.path === "/api/members/[id]/sign-out")!.module.POST as (
      r: Request,
      c: unknown,
    ) => Promise<Response>;
    const crossSignOut = await signOut(
      new Request(`http://localhost:3000/api/members/${ownerMember.id}/sign-out`, {
        method: "POST",
        headers: { authorization: `Bearer ${rivalToken.secret}` },
      }),
      { params: Promise.resolve({ id: ownerMember.id }) },
    );
    assert.equal(crossSignOut.status, 404, "another organisation's member cannot be signed out");
    assert.equal((await resolve(ownersToken.secret)).orgId, owner.orgId);
  });
});
