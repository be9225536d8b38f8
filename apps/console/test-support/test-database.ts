// A fresh database per test file, copied from the migrated template (team convention), with the
// same Prisma client and pg pool the console uses. The TestDatabase is itself a Db connected the
// way production connects: as a login role granted spindle_console and nothing else, so every
// operation a test calls meets row-level security and the view wall exactly as in production.
// The raw `prisma` / `pool` connect as the superuser (RLS does not apply to it) and are for
// fixtures and checks only.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createPool, createPrisma } from "@spindle/db";
import { testDatabaseEnv } from "@/lib/env";
import { databaseOf, type Db, type Pool, type Prisma } from "@/lib/db";

export interface TestDatabase extends Db {
  prisma: Prisma;
  pool: Pool;
  /** The superuser's URL (fixtures) and the console login's (a whole console process under test). */
  url: string;
  consoleUrl: string;
  drop(): Promise<void>;
}

const settings = testDatabaseEnv();

/** Pass to describe(): false when a test database is configured, otherwise the reason to skip. */
export const skipWithoutDatabase: string | false = "skip" in settings ? settings.skip : false;

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  if ("skip" in settings) throw new Error(settings.skip);
  const client = new pg.Client({ connectionString: settings.adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** The login the console's Db uses in tests: the one the migrations create and production uses, holding only spindle_console. */
export const consoleTestLogin = "spindle_console_login";

async function checkConsoleLogin(client: pg.Client): Promise<void> {
  // Roles are cluster-wide; the test cluster trusts local logins, as a password would elsewhere.
  const { rowCount } = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [consoleTestLogin]);
  if (!rowCount)
    throw new Error(`there is no ${consoleTestLogin}: migration 20261128150100_service_logins creates it; restart scripts/test-db.sh`);
}

/**
 * A fresh copy of the template under a random name; a benchmark passes `keep` with a fixed name
 * to open the copy an earlier run left (loading a fleet takes minutes) or create it once.
 */
export async function createTestDatabase(keep?: { name: string }): Promise<TestDatabase & { reused: boolean }> {
  if ("skip" in settings) throw new Error(settings.skip);
  const name = keep?.name ?? `console_test_${randomBytes(6).toString("hex")}`;
  const reused = await admin(async (client) => {
    const { rowCount } = keep ? await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]) : { rowCount: 0 };
    if (!rowCount) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(settings.template)}`);
    await checkConsoleLogin(client);
    return Boolean(rowCount);
  });
  const url = new URL(settings.adminUrl);
  url.pathname = `/${name}`;
  const prisma = createPrisma(url.toString());
  const pool = createPool(url.toString());
  const login = new URL(url);
  login.username = consoleTestLogin;
  login.password = "";
  const consolePrisma = createPrisma(login.toString());
  const consolePool = createPool(login.toString());
  const handle: Omit<TestDatabase, keyof Db> & { reused: boolean } = {
    reused,
    prisma,
    pool,
    url: url.toString(),
    consoleUrl: login.toString(),
    async drop() {
      await Promise.all([prisma.$disconnect(), consolePrisma.$disconnect()]);
      await Promise.all([pool.end(), consolePool.end()]);
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
    },
  };
  return databaseOf(consolePrisma, consolePool, handle);
}
