// The worker runs as the login production ships for it (spindle_worker_login, migration
// 20261128150100_service_logins), never as the schema's owner: on a database the owner migrated,
// its first start creates graphile-worker's queue schema itself and runs jobs; a queue schema an
// earlier owner-run worker made is handed to the login by the migration, so later graphile-worker
// migrations (which alter its tables) keep working. Issue 25, M4.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { defaultMigrationsDir, migrate } from "@spindle/db";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "@spindle/db/testing";
import { quickAddJob, runMigrations, runOnce } from "graphile-worker";
import pg from "pg";

const skip = testDatabaseSkipReason();
const serviceLoginsMigration = "20261128150100_service_logins";

function asWorkerLogin(url: string): string {
  const login = new URL(url);
  login.username = "spindle_worker_login";
  login.password = "";
  return login.toString();
}

async function queueOwner(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("SELECT nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = 'graphile_worker'")).rows[0]
      ?.owner;
  } finally {
    await client.end();
  }
}

/** Runs one job through the queue as the worker's login. */
async function runOneJob(url: string): Promise<string[]> {
  const ran: string[] = [];
  const marker = randomBytes(4).toString("hex");
  await quickAddJob({ connectionString: url }, "probe", { marker });
  await runOnce({ connectionString: url, taskList: { probe: async (payload) => void ran.push((payload as { marker: string }).marker) } });
  assert.deepEqual(ran, [marker]);
  return ran;
}

describe("the job queue as the worker's own login", { skip }, () => {
  const databases: TestDatabase[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const db of databases) await db.drop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("is created by the worker's first start on a database the owner migrated, and runs jobs", async () => {
    const db = await createTestDatabase({ migrated: false, label: "queue_login" });
    databases.push(db);
    await migrate(db.url);
    await runMigrations({ connectionString: asWorkerLogin(db.url) });
    assert.equal(await queueOwner(db.url), "spindle_worker_login");
    await runOneJob(asWorkerLogin(db.url));
  });

  it("made earlier by the owner, is handed to the worker's login by the migration", async () => {
    const db = await createTestDatabase({ migrated: false, label: "queue_handover" });
    databases.push(db);
    const root = await mkdtemp(join(tmpdir(), "spindle-queue-"));
    dirs.push(root);
    const migrations = join(root, "migrations");
    const held = join(root, "later");
    await cp(defaultMigrationsDir, migrations, { recursive: true });
    await mkdir(held);
    const later = (await readdir(migrations)).filter((name) => name >= serviceLoginsMigration);
    for (const name of later) await rename(join(migrations, name), join(held, name));
    await migrate(db.url, { migrationsDir: migrations });
    await runMigrations({ connectionString: db.url }); // an owner-run worker, before this release
    assert.notEqual(await queueOwner(db.url), "spindle_worker_login");
    for (const name of later) await rename(join(held, name), join(migrations, name));
    await migrate(db.url, { migrationsDir: migrations });
    assert.equal(await queueOwner(db.url), "spindle_worker_login");
    await runOneJob(asWorkerLogin(db.url));
    // The login owns what graphile-worker would alter on an upgrade.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'graphile_worker' AND c.relkind IN ('r', 'S') AND c.relowner <> 'spindle_worker_login'::regrole`);
      assert.deepEqual(rows, []);
    } finally {
      await client.end();
    }
  });
});
