// A fresh database per test file, copied from the migrated template (team convention), with the
// same Prisma client and pg pool the console uses. The TestDatabase is itself a Db, so tests call
// the operations exactly as the routes do (under spindle_console and row-level security); the raw
// `prisma` / `pool` (the superuser, which RLS does not apply to) are for fixtures and checks only.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createPool, createPrisma } from "@spindle/db";
import { testDatabaseEnv } from "@/lib/env";
import { databaseOf, type Db, type Pool, type Prisma } from "@/lib/db";

export interface TestDatabase extends Db {
  prisma: Prisma;
  pool: Pool;
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

export async function createTestDatabase(): Promise<TestDatabase> {
  if ("skip" in settings) throw new Error(settings.skip);
  const name = `console_test_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${pg.escapeIdentifier(settings.template)}`));
  const url = new URL(settings.adminUrl);
  url.pathname = `/${name}`;
  const prisma = createPrisma(url.toString());
  const pool = createPool(url.toString());
  const handle: Omit<TestDatabase, keyof Db> = {
    prisma,
    pool,
    async drop() {
      await prisma.$disconnect();
      await pool.end();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
  return databaseOf(prisma, pool, handle);
}
