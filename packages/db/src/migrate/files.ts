import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MigrationError } from "./errors.js";

/** src/migrate and dist/migrate both sit two levels below the package root. */
export const defaultMigrationsDir = fileURLToPath(new URL("../../migrations", import.meta.url));

/**
 * Which file of a migration folder ran: `migration` for a single-file migration, `timescale`
 * or `plain` for a folder that has one script per time-series mode.
 */
export type MigrationVariant = "migration" | "timescale" | "plain";

export interface MigrationFolder {
  /** The folder name, e.g. `20261121080100_telemetry`; migrations run in name order. */
  name: string;
  dir: string;
  /** True when the folder holds `timescale.sql` + `plain.sql` rather than `migration.sql`. */
  dependsOnTimeseriesMode: boolean;
}

export interface MigrationScript {
  variant: MigrationVariant;
  /** The SQL with every include inlined: exactly what runs, and what the checksum covers. */
  sql: string;
  checksum: string;
}

const folderName = /^\d{14}_[a-z0-9_]+$/;
const includeLine = /^[ \t]*--[ \t]*spindle:include[ \t]+(\S+)[ \t]*$/gm;
const hasInclude = (sql: string) => new RegExp(includeLine.source, "m").test(sql);
const includeFile = /^[A-Za-z0-9_.-]+\.sql$/;

export async function listMigrations(migrationsDir: string): Promise<MigrationFolder[]> {
  let entries: string[];
  try {
    entries = await readdir(migrationsDir);
  } catch (error) {
    throw new MigrationError(`cannot read the migrations folder ${migrationsDir}: ${(error as Error).message}`);
  }
  const folders: MigrationFolder[] = [];
  for (const name of entries.sort()) {
    const dir = join(migrationsDir, name);
    if (!(await stat(dir)).isDirectory()) continue;
    if (!folderName.test(name)) {
      throw new MigrationError(
        `migration folder "${name}" must be named <yyyymmddhhmmss>_<snake_case_name>, e.g. 20261121080000_relational`,
      );
    }
    const files = new Set(await readdir(dir));
    const single = files.has("migration.sql");
    const pair = files.has("timescale.sql") && files.has("plain.sql");
    if (single === pair) {
      throw new MigrationError(
        `migration ${name} must contain either migration.sql, or both timescale.sql and plain.sql (found: ${[...files].join(", ") || "nothing"})`,
      );
    }
    folders.push({ name, dir, dependsOnTimeseriesMode: pair });
  }
  return folders;
}

export async function loadScript(folder: MigrationFolder, variant: MigrationVariant): Promise<MigrationScript> {
  const raw = await readFolderFile(folder, `${variant}.sql`);
  const sql = await inlineIncludes(folder, raw);
  return { variant, sql, checksum: createHash("sha256").update(sql).digest("hex") };
}

/** Replaces each `-- spindle:include <file>` line with that sibling file (one level, no nesting). */
async function inlineIncludes(folder: MigrationFolder, sql: string): Promise<string> {
  const names = [...sql.matchAll(includeLine)].map((match) => match[1] as string);
  const contents = new Map<string, string>();
  for (const name of names) {
    if (!includeFile.test(name)) {
      throw new MigrationError(`migration ${folder.name}: "-- spindle:include ${name}" must name a .sql file in the same folder`);
    }
    const included = await readFolderFile(folder, name);
    if (hasInclude(included)) {
      throw new MigrationError(`migration ${folder.name}: ${name} is included and must not include other files itself`);
    }
    contents.set(name, included.endsWith("\n") ? included : `${included}\n`);
  }
  return sql.replace(includeLine, (_line, name: string) => `-- begin ${name}\n${contents.get(name)}-- end ${name}`);
}

async function readFolderFile(folder: MigrationFolder, file: string): Promise<string> {
  try {
    return await readFile(join(folder.dir, file), "utf8");
  } catch (error) {
    throw new MigrationError(`migration ${folder.name}: cannot read ${file}: ${(error as Error).message}`);
  }
}
