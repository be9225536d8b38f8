import type { MigrationVariant } from "./files.js";
import type { MigrationSession } from "./session.js";

/** One row of schema_migrations: what ran, which file of the folder, and the hash of its SQL. */
export interface AppliedMigration {
  name: string;
  variant: MigrationVariant;
  checksum: string;
  appliedAt: Date;
  durationMs: number;
}

/**
 * The runner's own tables. `spindle_settings` holds facts about the database that every
 * service reads, starting with the time-series mode; the runner owns it because the mode is
 * settled while migrating.
 */
export async function ensureLedger(session: MigrationSession): Promise<void> {
  await session.exec(`
    CREATE TABLE IF NOT EXISTS schema_migrations (
      name        text PRIMARY KEY,
      variant     text NOT NULL CHECK (variant IN ('migration', 'timescale', 'plain')),
      checksum    text NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now(),
      duration_ms integer NOT NULL
    );
    CREATE TABLE IF NOT EXISTS spindle_settings (
      key        text PRIMARY KEY,
      value      text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function readApplied(session: MigrationSession): Promise<Map<string, AppliedMigration>> {
  const present = await session.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (!present.rows[0]?.present) return new Map();
  const { rows } = await session.query<{
    name: string;
    variant: MigrationVariant;
    checksum: string;
    applied_at: Date;
    duration_ms: number;
  }>("SELECT name, variant, checksum, applied_at, duration_ms FROM schema_migrations ORDER BY name");
  return new Map(
    rows.map((row) => [
      row.name,
      {
        name: row.name,
        variant: row.variant,
        checksum: row.checksum,
        appliedAt: new Date(row.applied_at),
        durationMs: row.duration_ms,
      },
    ]),
  );
}

export async function recordApplied(session: MigrationSession, migration: Omit<AppliedMigration, "appliedAt">): Promise<void> {
  await session.query("INSERT INTO schema_migrations (name, variant, checksum, duration_ms) VALUES ($1, $2, $3, $4)", [
    migration.name,
    migration.variant,
    migration.checksum,
    migration.durationMs,
  ]);
}
