// Row-level security and service roles (migration 20261123130000_tenant_security): every table
// with an org_id column is protected, a query without the organisation set sees nothing, and each
// service role has only the rights it needs. This test also guards migrations written later (or
// on other branches): an org_id table a migration forgets to protect fails here by name.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { withOrgTransaction } from "../src/tenant.js";
import { unprotectedHint, unprotectedTenantRelationsQuery } from "./support/tenant-protection.js";

const orgA = "org-rls-a";
const orgB = "org-rls-b";

describe("tenant isolation in the database", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await createTestDatabase({ label: "tenant_security" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    // Seeded as the superuser (the migration owner), which RLS does not apply to.
    for (const org of [orgA, orgB]) {
      await client.query(`INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, [org]);
      await client.query(`INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ($1, 'm-' || $1, 'host-' || $1, 'linux')`, [org]);
    }
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it("protects every relation that has an org_id column: forced RLS, or the view wall for raw telemetry", async () => {
    const all = await client.query(`SELECT count(*)::int AS n FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND a.attname = 'org_id' AND c.relkind IN ('r', 'p')`);
    assert.ok(all.rows[0].n >= 20, `expected every tenant table, found ${all.rows[0].n}`);
    const { rows } = await client.query(unprotectedTenantRelationsQuery);
    assert.deepEqual(
      rows.map((r) => r.relname),
      [],
      unprotectedHint,
    );
  });

  it("finds a tenant table a later migration forgets to protect", async () => {
    await client.query("CREATE TABLE forgotten_tenant_table (org_id text NOT NULL, value int)");
    try {
      const { rows } = await client.query(unprotectedTenantRelationsQuery);
      assert.deepEqual(
        rows.map((r) => r.relname),
        ["forgotten_tenant_table"],
      );
      await client.query("SELECT spindle_protect_tenant_relation('forgotten_tenant_table')");
      assert.deepEqual((await client.query(unprotectedTenantRelationsQuery)).rows, []);
    } finally {
      await client.query("DROP TABLE forgotten_tenant_table");
    }
  });

  it("shows a service role nothing without the organisation, and only its organisation with it", async () => {
    await client.query("BEGIN");
    try {
      await client.query("SET LOCAL ROLE spindle_console");
      assert.equal((await client.query("SELECT count(*)::int AS n FROM servers")).rows[0].n, 0);
      await client.query("SELECT set_config('spindle.org_id', $1, true)", [orgA]);
      const seen = await client.query("SELECT org_id FROM servers");
      assert.deepEqual(seen.rows, [{ org_id: orgA }]);
      await assert.rejects(
        client.query(`INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ($1, 'x', 'x', 'linux')`, [orgB]),
        /row-level security/,
      );
    } finally {
      await client.query("ROLLBACK");
    }
  });

  it("withOrgTransaction sets the organisation for one transaction only", async () => {
    const inside = await withOrgTransaction(
      client,
      orgB,
      "spindle_console",
      async (tx) => (await tx.query("SELECT org_id FROM servers")).rows,
    );
    assert.deepEqual(inside, [{ org_id: orgB }]);
    const after = await client.query("SELECT current_setting('spindle.org_id', true) AS org, current_user AS role");
    assert.ok(!after.rows[0].org, "the organisation leaked out of the transaction");
    assert.equal(after.rows[0].role, "postgres");
    await assert.rejects(
      withOrgTransaction(client, "", "spindle_console", async () => 1),
      /organisation id/,
    );
  });

  /** One statement in its own transaction as `role`, with the organisation set when given. */
  async function asRole(role: string, org: string | null, sql: string) {
    await client.query("BEGIN");
    try {
      await client.query(`SET LOCAL ROLE ${role}`);
      if (org) await client.query("SELECT set_config('spindle.org_id', $1, true)", [org]);
      return (await client.query(sql)).rows;
    } finally {
      await client.query("ROLLBACK");
    }
  }

  it("lets the cross-tenant system role see every organisation, and Grafana only read", async () => {
    assert.deepEqual(await asRole("spindle_system", null, "SELECT count(DISTINCT org_id)::int AS n FROM servers"), [{ n: 2 }]);
    // spindle_grafana takes its organisation from its bound login, never from spindle.org_id:
    // adopted by a session that is no bound login, it sees nothing even with the setting.
    assert.deepEqual(await asRole("spindle_grafana", orgA, "SELECT count(*)::int AS n FROM servers"), [{ n: 0 }]);
    assert.deepEqual(await asRole("spindle_grafana", orgA, "SELECT count(*)::int AS n FROM spindle_grafana_views.disk_io"), [{ n: 0 }]);
    await assert.rejects(asRole("spindle_grafana", orgA, "SELECT count(*) FROM spindle_tenant.disk_io"), /permission denied/);
    await assert.rejects(asRole("spindle_grafana", orgA, "SELECT count(*) FROM agents"), /permission denied/);
    // Raw telemetry (COPY targets, no RLS): only through the filtered view.
    await assert.rejects(asRole("spindle_grafana", orgA, "SELECT count(*) FROM public.disk_io"), /permission denied/);
    await assert.rejects(asRole("spindle_console", orgA, "SELECT count(*) FROM public.disk_io"), /permission denied/);
    await assert.rejects(asRole("spindle_grafana", orgA, "SELECT count(*) FROM users"), /permission denied/);
    await assert.rejects(asRole("spindle_grafana", orgA, "DELETE FROM servers"), /permission denied/);
  });

  it("shows raw telemetry through spindle_tenant views filtered to the organisation, and nothing without it", async () => {
    for (const org of [orgA, orgB]) {
      await client.query(
        `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes,
        write_bytes, read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
        SELECT now(), org_id, id, 'sda', 10, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0 FROM servers WHERE org_id = $1`,
        [org],
      );
    }
    assert.deepEqual(await asRole("spindle_console", orgA, "SELECT DISTINCT org_id FROM spindle_tenant.disk_io"), [{ org_id: orgA }]);
    assert.deepEqual(await asRole("spindle_console", null, "SELECT count(*)::int AS n FROM spindle_tenant.disk_io"), [{ n: 0 }]);
  });

  it("keeps spindle_worker to one organisation, while it can still switch to spindle_system for cross-tenant jobs", async () => {
    assert.deepEqual(await asRole("spindle_worker", null, "SELECT count(*)::int AS n FROM servers"), [{ n: 0 }]);
    assert.deepEqual(await asRole("spindle_worker", orgA, "SELECT DISTINCT org_id FROM servers"), [{ org_id: orgA }]);
    await client.query("BEGIN");
    try {
      await client.query("SET LOCAL ROLE spindle_worker");
      await client.query("SET LOCAL ROLE spindle_system");
      assert.deepEqual((await client.query("SELECT count(DISTINCT org_id)::int AS n FROM servers")).rows, [{ n: 2 }]);
    } finally {
      await client.query("ROLLBACK");
    }
  });

  it("keeps the gateway away from identities and the console away from the migration ledger", async () => {
    const { rows } = await client.query(`
      SELECT has_table_privilege('spindle_gateway', 'users', 'SELECT') AS gateway_users,
             has_table_privilege('spindle_gateway', 'servers', 'DELETE') AS gateway_delete,
             has_table_privilege('spindle_console', 'schema_migrations', 'SELECT') AS console_ledger`);
    assert.deepEqual(rows[0], { gateway_users: false, gateway_delete: false, console_ledger: false });
  });

  // Identity tables (better-auth's, and issue 24's two-factor secrets, API tokens and SSO
  // providers) have no org_id: a token or a domain is looked up before its organisation is known.
  // The console alone reaches them; every other role is listed here with what it may read.
  it("keeps every table without an org_id from the gateway, worker and Grafana, but the few they need", async () => {
    const { rows } = await client.query<{ role: string; relname: string }>(`
      SELECT r.role, c.relname FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      CROSS JOIN unnest(ARRAY['spindle_gateway', 'spindle_worker', 'spindle_system', 'spindle_grafana']) AS r(role)
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')
        AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped)
        AND has_table_privilege(r.role, c.oid, 'SELECT, INSERT, UPDATE, DELETE')
      ORDER BY 1, 2`);
    const reachable = rows.map((row) => `${row.role}: ${row.relname}`);
    // agent_releases: what the gateways serve, the same for every organisation (issue 26).
    assert.deepEqual(reachable, [
      "spindle_gateway: agent_releases",
      "spindle_gateway: gateway_signing_keys",
      "spindle_gateway: organizations",
      "spindle_gateway: spindle_settings",
      "spindle_system: agent_releases",
      "spindle_system: notification_secrets_keys",
      "spindle_system: organizations",
      "spindle_system: spindle_settings",
      "spindle_worker: agent_releases",
      "spindle_worker: notification_secrets_keys",
      "spindle_worker: organizations",
      "spindle_worker: spindle_settings",
    ]);
    const identity = [
      "users",
      "accounts",
      "sessions",
      "verifications",
      "members",
      "invitations",
      "two_factors",
      "api_tokens",
      "sso_providers",
    ];
    const { rows: console } = await client.query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE relname = ANY ($1) AND has_table_privilege('spindle_console', oid, 'SELECT') ORDER BY 1`,
      [identity],
    );
    assert.deepEqual(
      console.map((row) => row.relname),
      [...identity].sort(),
    );
  });
});
