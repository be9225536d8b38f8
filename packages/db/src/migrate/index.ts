import { connectClient } from "../connect.js";
import { runMigrations, type MigrateOptions, type MigrateResult } from "./runner.js";
import { pgSession } from "./session.js";
import { readMigrationStatus, type MigrationStatus } from "./status.js";

/** Connects to `databaseUrl`, applies every pending migration, and disconnects. */
export async function migrate(databaseUrl: string, options: MigrateOptions = {}): Promise<MigrateResult> {
  const client = await connectClient(databaseUrl);
  try {
    return await runMigrations(pgSession(client), options);
  } finally {
    await client.end();
  }
}

/** Which migrations are applied, pending, changed on disk, or unknown to this code. */
export async function migrationStatus(databaseUrl: string, options: { migrationsDir?: string } = {}): Promise<MigrationStatus> {
  const client = await connectClient(databaseUrl);
  try {
    return await readMigrationStatus(pgSession(client), options);
  } finally {
    await client.end();
  }
}

export { MigrationError } from "./errors.js";
export { defaultMigrationsDir, type MigrationVariant } from "./files.js";
export type { AppliedMigration } from "./ledger.js";
export { runMigrations, type MigrateOptions, type MigrateResult } from "./runner.js";
export { pgSession, type MigrationSession } from "./session.js";
export {
  loginFromUrl,
  scramVerifier,
  serviceLogins,
  setServiceLoginPasswords,
  type Service,
  type ServiceDatabaseUrls,
} from "./service-logins.js";
export { readMigrationStatus, type MigrationState, type MigrationStatus, type MigrationStatusEntry } from "./status.js";
export {
  findTimeseriesMode,
  readTimeseriesMode,
  timeseriesModes,
  timeseriesModeSchema,
  timeseriesModeRequestSchema,
  type Queryable,
  type TimeseriesMode,
  type TimeseriesModeRequest,
} from "./timeseries-mode.js";
