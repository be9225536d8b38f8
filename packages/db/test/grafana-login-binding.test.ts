// Migration 20261128150000_grafana_login_binding: a Grafana login's organisation is bound to the
// login (spindle_bind_grafana_login), logins bound the old way are carried over, and a tenant
// table a later migration forgets to protect is protected by the runner anyway. The attacks on a
// bound login, on both time-series paths, are e2e/integration/grafana-tenant-binding.test.ts.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdir, readdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { migrate } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { copyOfMigrations } from "./support/fixtures.js";
import { unprotectedTenantRelationsQuery } from "./support/tenant-protection.js";

const skip = testDatabaseSkipReason();
const bindingMigration = "20261128150000_grafana_login_binding";

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>, user?: string): Promise<T> {
  const target = new URL(url);
  if (user) target.username = user;
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Roles are cluster-wide: each test names its own and drops them at the end. */
function loginNames(count: number): string[] {
  const nonce = randomBytes(4).toString("hex");
  return Array.from({ length: count }, (_, i) => `grafana_t${nonce}_${i}`);
}

async function dropRoles(names: string[]) {
  await withClient(process.env.SPINDLE_TEST_DATABASE_URL!, async (admin) => {
    for (const name of names) await admin.query(`DROP ROLE IF EXISTS ${name}`);
  });
}

describe("Grafana logins bound to an organisation", { skip }, () => {
  let db: TestDatabase;
  const [bound, superuser, outsider, twoRoles] = loginNames(4);

  before(async () => {
    db = await createTestDatabase({ label: "grafana_binding" });
    await withClient(db.url, async (admin) => {
      for (const org of ["org-a", "org-b"]) {
        await admin.query(`INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, [org]);
        await admin.query(`INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ($1, 'm', 'host-' || $1, 'linux')`, [org]);
      }
      await admin.query(`CREATE ROLE ${bound} LOGIN IN ROLE spindle_grafana`);
      await admin.query(`CREATE ROLE ${superuser} LOGIN SUPERUSER IN ROLE spindle_grafana`);
      await admin.query(`CREATE ROLE ${outsider} LOGIN`);
      await admin.query(`CREATE ROLE ${twoRoles} LOGIN IN ROLE spindle_grafana, spindle_console`);
    });
  });
  after(async () => {
    await db?.drop();
    await dropRoles([bound!, superuser!, outsider!, twoRoles!]);
  });

  it("binds a login and sets its defaults, so it reads its organisation and only that one", async () => {
    await withClient(db.url, (admin) => admin.query("SELECT spindle_bind_grafana_login($1, 'org-a')", [bound]));
    await withClient(
      db.url,
      async (login) => {
        assert.deepEqual((await login.query("SELECT current_user AS role, current_setting('search_path') AS path")).rows, [
          { role: "spindle_grafana", path: "spindle_grafana_views, public" },
        ]);
        assert.deepEqual((await login.query("SELECT hostname FROM servers")).rows, [{ hostname: "host-org-a" }]);
        await login.query("SELECT set_config('spindle.org_id', 'org-b', false)");
        assert.deepEqual((await login.query("SELECT hostname FROM servers")).rows, [{ hostname: "host-org-a" }]);
      },
      bound,
    );
    // Rebinding moves it; unbinding leaves it nothing.
    await withClient(db.url, (admin) => admin.query("SELECT spindle_bind_grafana_login($1, 'org-b')", [bound]));
    await withClient(
      db.url,
      async (login) => {
        assert.deepEqual((await login.query("SELECT hostname FROM servers")).rows, [{ hostname: "host-org-b" }]);
      },
      bound,
    );
    await withClient(db.url, (admin) => admin.query("SELECT spindle_unbind_grafana_login($1)", [bound]));
    await withClient(
      db.url,
      async (login) => {
        assert.deepEqual((await login.query("SELECT count(*)::int AS n FROM servers")).rows, [{ n: 0 }]);
      },
      bound,
    );
  });

  it("refuses logins a binding could not hold, with what to do", async () => {
    await withClient(db.url, async (admin) => {
      const bind = (login: string, org = "org-a") => admin.query("SELECT spindle_bind_grafana_login($1, $2)", [login, org]);
      await assert.rejects(bind("no_such_role_here"), /there is no role no_such_role_here/);
      await assert.rejects(bind(superuser!), /superuser or has BYPASSRLS or CREATEROLE/);
      await assert.rejects(bind(outsider!), /must be a LOGIN member of spindle_grafana/);
      await assert.rejects(bind(twoRoles!), /also holds spindle_console/);
      await assert.rejects(bind(bound!, "org-nobody"), /there is no organisation with id org-nobody/);
    });
  });
});

describe("logins bound the old way (ALTER ROLE … SET spindle.org_id)", { skip }, () => {
  const [old] = loginNames(1);
  let db: TestDatabase;
  let migrations: { dir: string; remove(): Promise<void> };

  before(async () => {
    db = await createTestDatabase({ migrated: false, label: "grafana_rebind" });
    migrations = await copyOfMigrations();
  });
  after(async () => {
    await db?.drop();
    await migrations?.remove();
    await dropRoles([old!]);
  });

  it("are bound to the same organisation and lose the setting that showed everyone the id", async () => {
    // Migrate to just before the binding migration, bind a login the old, documented way, then
    // apply the rest.
    const names = (await readdir(migrations.dir)).filter((n) => n >= bindingMigration).sort();
    const held = join(migrations.dir, "..", "later");
    await mkdir(held);
    for (const name of names) await rename(join(migrations.dir, name), join(held, name));
    await migrate(db.url, { migrationsDir: migrations.dir });
    await withClient(db.url, async (admin) => {
      await admin.query(`INSERT INTO organizations (id, name, slug) VALUES ('org-old', 'old', 'old')`);
      await admin.query(`INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ('org-old', 'm', 'old-host', 'linux')`);
      await admin.query(`CREATE ROLE ${old} LOGIN IN ROLE spindle_grafana`);
      await admin.query(`ALTER ROLE ${old} SET role = 'spindle_grafana'`);
      await admin.query(`ALTER ROLE ${old} SET spindle.org_id = 'org-old'`);
      await admin.query(`ALTER ROLE ${old} SET search_path = spindle_tenant, public`);
    });
    for (const name of names) await rename(join(held, name), join(migrations.dir, name));
    await migrate(db.url, { migrationsDir: migrations.dir });
    await withClient(db.url, async (admin) => {
      const settings = await admin.query(`SELECT unnest(setconfig) AS s FROM pg_db_role_setting WHERE setrole = $1::regrole`, [old]);
      assert.deepEqual(settings.rows.map((r) => r.s).sort(), ["role=spindle_grafana", "search_path=spindle_grafana_views, public"]);
    });
    await withClient(
      db.url,
      async (login) => {
        assert.deepEqual((await login.query("SELECT hostname FROM servers")).rows, [{ hostname: "old-host" }]);
        assert.deepEqual((await login.query("SELECT count(*)::int AS n FROM disk_io_1m")).rows, [{ n: 0 }]);
      },
      old,
    );
  });
});

describe("tenant relations a migration forgets to protect", { skip }, () => {
  let db: TestDatabase;
  let migrations: { dir: string; remove(): Promise<void> };

  before(async () => {
    db = await createTestDatabase({ migrated: false, label: "tenant_by_construction" });
    migrations = await copyOfMigrations();
  });
  after(async () => {
    await db?.drop();
    await migrations?.remove();
  });

  it("are protected by the runner at the end of that migration, and it says so", async () => {
    const folder = join(migrations.dir, "20991231000000_forgetful_feature");
    await mkdir(folder);
    // One relational table and one raw telemetry table, neither protected by the migration.
    await writeFile(
      join(folder, "migration.sql"),
      `
      CREATE TABLE forgotten_settings (org_id text NOT NULL, id uuid PRIMARY KEY DEFAULT gen_random_uuid(), value int);
      CREATE TABLE forgotten_samples (time timestamptz NOT NULL, org_id text NOT NULL, value int);`,
    );
    const lines: string[] = [];
    await migrate(db.url, { migrationsDir: migrations.dir, log: (line) => lines.push(line) });
    assert.ok(
      lines.some((l) =>
        l.includes("20991231000000_forgetful_feature left forgotten_samples, forgotten_settings without tenant protection"),
      ),
      lines.join("\n"),
    );
    await withClient(db.url, async (admin) => {
      assert.deepEqual((await admin.query(unprotectedTenantRelationsQuery)).rows, []);
      await admin.query(`INSERT INTO organizations (id, name, slug) VALUES ('org-x', 'x', 'x'), ('org-y', 'y', 'y')`);
      await admin.query(`INSERT INTO forgotten_settings (org_id, value) VALUES ('org-x', 1), ('org-y', 2)`);
      await admin.query("BEGIN");
      await admin.query("SET LOCAL ROLE spindle_console");
      await admin.query("SELECT set_config('spindle.org_id', 'org-x', true)");
      assert.deepEqual((await admin.query("SELECT value FROM forgotten_settings")).rows, [{ value: 1 }]);
      await assert.rejects(admin.query("SELECT * FROM public.forgotten_samples"), /permission denied/);
      await admin.query("ROLLBACK");
    });
  });
});
