// better-auth's first lookups (the user by e-mail at sign-up and sign-in, the account, the
// membership the session lands in, the session by its cookie) run before the console knows any
// organisation, outside inOrg. They run on the login production ships for the console
// (spindle_console_login, migration 20261128150100_service_logins): not the owner, not a
// superuser, no BYPASSRLS, so row-level security holds on the very connection they use, and an
// injected statement there could not read a tenant row. Issue 25, M4.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createPrisma } from "@spindle/db";
import type { Prisma } from "@/lib/db";
import { createServer } from "@/test-support/fixtures";
import { consoleTestLogin, createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";

type Auth = ReturnType<typeof import("@/modules/auth/lib/auth").createAuth>;

describe("better-auth on the console's shipped login", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let identity: Prisma;
  let auth: Auth;

  before(async () => {
    db = await createTestDatabase();
    const { rows } = await db.pool.query<{ name: string }>("SELECT current_database() AS name");
    const name = rows[0]!.name;
    const login = new URL(process.env.SPINDLE_TEST_DATABASE_URL!);
    login.username = consoleTestLogin;
    login.password = "";
    login.pathname = `/${name}`;
    identity = createPrisma(login.toString());
    process.env.DATABASE_URL ??= "postgres://unused.test/none";
    process.env.BETTER_AUTH_SECRET ??= "a".repeat(32);
    const { createAuth } = await import("@/modules/auth/lib/auth");
    auth = createAuth(identity, db);
  });
  after(async () => {
    await identity?.$disconnect();
    await db?.drop();
  });

  it("signs up, signs in and reads the session on a connection that row-level security holds", async () => {
    const owner = await auth.api.signUpEmail({ body: { email: "rls@example.com", password: "correct horse battery", name: "rls" } });
    const org = await db.prisma.organization.create({ data: { id: "org-rls", name: "RLS", slug: "rls" } });
    await db.prisma.member.create({ data: { id: "member-rls", organizationId: org.id, userId: owner.user.id, role: "owner" } });
    await createServer(db.prisma, org.id, "rls-db01");
    const { headers } = await auth.api.signInEmail({
      body: { email: "rls@example.com", password: "correct horse battery" },
      returnHeaders: true,
    });
    const cookie = headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const session = await auth.api.getSession({ headers: new Headers({ cookie }) });
    assert.equal(session?.session.activeOrganizationId, org.id, "the session hook's membership lookup ran");

    const [state] = await identity.$queryRaw<{ login: string; superuser: boolean; bypass: boolean; rls: boolean; servers: number }[]>`
      SELECT current_user AS login, r.rolsuper AS superuser, r.rolbypassrls AS bypass,
             row_security_active('servers') AS rls, (SELECT count(*)::int FROM servers) AS servers
      FROM pg_roles r WHERE r.rolname = current_user`;
    assert.deepEqual(state, { login: "spindle_console_login", superuser: false, bypass: false, rls: true, servers: 0 });
    const owned = await identity.$queryRaw<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)`;
    assert.deepEqual(owned, [{ n: 0 }], "the console's login owns no table, so FORCE ROW LEVEL SECURITY is what holds it");
  });
});
