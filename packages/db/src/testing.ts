// Test databases for every DB-backed TypeScript test in the repo, following the team's
// convention: a test orchestrator (scripts/test-db.sh) runs one PostgreSQL with a migrated
// `spindle_template` database and exports SPINDLE_TEST_DATABASE_URL (an admin URL) and
// SPINDLE_TEST_TEMPLATE_DB. Each test file copies the template into a database of its own.
import { randomBytes } from "node:crypto";
import pg from "pg";

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

const startHint = 'run `eval "$(bash scripts/test-db.sh start)"` from the repository root first';

/**
 * Undefined when test databases are available. Otherwise the reason to skip, or, under
 * CI=true, an error: in CI a missing database is a broken pipeline, not a reason to skip.
 * Use as `describe("…", { skip: testDatabaseSkipReason() }, …)`.
 */
export function testDatabaseSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.SPINDLE_TEST_DATABASE_URL && env.SPINDLE_TEST_TEMPLATE_DB) return undefined;
  const reason = `SPINDLE_TEST_DATABASE_URL and SPINDLE_TEST_TEMPLATE_DB are not set: ${startHint}`;
  if (env.CI === "true") throw new Error(reason);
  return reason;
}

/**
 * A fresh database: a copy of the migrated template by default, or an empty one
 * (`{ migrated: false }`) for tests of the migrations themselves.
 */
export async function createTestDatabase(options: { migrated?: boolean; label?: string } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.SPINDLE_TEST_DATABASE_URL;
  const template = process.env.SPINDLE_TEST_TEMPLATE_DB;
  if (!adminUrl || !template) throw new Error(`no test database server: ${startHint}`);
  const label = (options.label ?? "test")
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_")
    .slice(0, 30);
  const name = `t_${label}_${randomBytes(5).toString("hex")}`;
  const source = options.migrated === false ? "template0" : template;
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(source)}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(adminUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}
