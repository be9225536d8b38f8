// A fresh database copied from the migrated template that scripts/test-db.sh prepares.
import { randomBytes } from "node:crypto";
import pg from "pg";

export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = process.env.SPINDLE_TEST_DATABASE_URL;
  const template = process.env.SPINDLE_TEST_TEMPLATE_DB;
  if (!admin || !template) {
    throw new Error('This test needs the test database: run eval "$(bash scripts/test-db.sh start)" first.');
  }
  const name = `spindle_it_${randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
