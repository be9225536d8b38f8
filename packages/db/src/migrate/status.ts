import { defaultMigrationsDir, listMigrations, loadScript, type MigrationVariant } from "./files.js";
import { readApplied } from "./ledger.js";
import type { MigrationSession } from "./session.js";
import { findTimeseriesMode, type TimeseriesMode } from "./timeseries-mode.js";

export type MigrationState =
  | "applied"
  /** Not yet applied. */
  | "pending"
  /** Applied, but its SQL on disk no longer matches the recorded checksum. */
  | "changed"
  /** Applied, but not in the migrations folder (the database is newer than this code). */
  | "unknown";

export interface MigrationStatusEntry {
  name: string;
  state: MigrationState;
  variant?: MigrationVariant;
  appliedAt?: Date;
}

export interface MigrationStatus {
  migrations: MigrationStatusEntry[];
  /** Undefined until the first migration that depends on it has run. */
  timeseriesMode?: TimeseriesMode | undefined;
}

/** Read-only: takes no lock and creates nothing, so it is safe against a production database. */
export async function readMigrationStatus(session: MigrationSession, options: { migrationsDir?: string } = {}): Promise<MigrationStatus> {
  const folders = await listMigrations(options.migrationsDir ?? defaultMigrationsDir);
  const applied = await readApplied(session);
  const migrations: MigrationStatusEntry[] = [];
  for (const folder of folders) {
    const record = applied.get(folder.name);
    if (!record) {
      migrations.push({ name: folder.name, state: "pending" });
      continue;
    }
    const script = await loadScript(folder, record.variant);
    const state = script.checksum === record.checksum ? "applied" : "changed";
    migrations.push({ name: folder.name, state, variant: record.variant, appliedAt: record.appliedAt });
  }
  const known = new Set(folders.map((folder) => folder.name));
  for (const record of applied.values()) {
    if (!known.has(record.name)) {
      migrations.push({ name: record.name, state: "unknown", variant: record.variant, appliedAt: record.appliedAt });
    }
  }
  migrations.sort((a, b) => a.name.localeCompare(b.name));
  return { migrations, timeseriesMode: await findTimeseriesMode(session) };
}
