import { MigrationError } from "./errors.js";
import {
  defaultMigrationsDir,
  listMigrations,
  loadScript,
  type MigrationFolder,
  type MigrationScript,
  type MigrationVariant,
} from "./files.js";
import { ensureLedger, readApplied, recordApplied, type AppliedMigration } from "./ledger.js";
import { withMigrationLock } from "./lock.js";
import { setServiceLoginPasswords, type ServiceDatabaseUrls } from "./service-logins.js";
import type { MigrationSession } from "./session.js";
import {
  assertModeRequest,
  findTimeseriesMode,
  settleTimeseriesMode,
  type TimeseriesMode,
  type TimeseriesModeRequest,
} from "./timeseries-mode.js";

export interface MigrateOptions {
  /** Defaults to packages/db/migrations. */
  migrationsDir?: string;
  /** Defaults to `auto`: TimescaleDB when the server offers it, plain tables otherwise. */
  timeseriesMode?: TimeseriesModeRequest;
  /** Progress lines for a human; silent by default. */
  log?: (line: string) => void;
  /**
   * The DATABASE_URL each service will run with: after migrating, its login (created by
   * 20261128150100_service_logins) gets the URL's password.
   */
  serviceDatabaseUrls?: ServiceDatabaseUrls;
}

export interface MigrateResult {
  /** Names of the migrations this run applied, in order; empty when the database was current. */
  applied: string[];
  /** Undefined only when no migration so far depends on the mode. */
  timeseriesMode?: TimeseriesMode | undefined;
}

/**
 * Applies every pending migration in name order, each in its own transaction, under an advisory
 * lock. Refuses to run when an applied migration's SQL has changed on disk, or when the database
 * holds a migration this code does not know (it was migrated by a newer release).
 */
export async function runMigrations(session: MigrationSession, options: MigrateOptions = {}): Promise<MigrateResult> {
  const log = options.log ?? (() => {});
  const folders = await listMigrations(options.migrationsDir ?? defaultMigrationsDir);
  return withMigrationLock(session, log, async () => {
    await ensureLedger(session);
    const applied = await readApplied(session);
    await verifyApplied(folders, applied);
    const modeRequest = options.timeseriesMode ?? "auto";
    const storedMode = await findTimeseriesMode(session);
    if (storedMode) assertModeRequest(storedMode, modeRequest);
    const pending = folders.filter((folder) => !applied.has(folder.name));
    if (pending.length === 0) log("database is up to date");
    for (const folder of pending) {
      const script = await applyOne(session, folder, modeRequest, log);
      log(`applied ${folder.name} (${script.variant}.sql)`);
    }
    if (options.serviceDatabaseUrls) {
      for (const login of await setServiceLoginPasswords(session, options.serviceDatabaseUrls)) {
        log(`set the password of ${login} from its service's URL`);
      }
    }
    return { applied: pending.map((folder) => folder.name), timeseriesMode: await findTimeseriesMode(session) };
  });
}

async function applyOne(
  session: MigrationSession,
  folder: MigrationFolder,
  modeRequest: TimeseriesModeRequest,
  log: (line: string) => void,
): Promise<MigrationScript> {
  await session.exec("BEGIN");
  try {
    const variant: MigrationVariant = folder.dependsOnTimeseriesMode
      ? variantFor(await settleTimeseriesMode(session, modeRequest))
      : "migration";
    const script = await loadScript(folder, variant);
    const started = performance.now();
    try {
      await session.exec(script.sql);
    } catch (error) {
      throw describeSqlFailure(folder, script, error);
    }
    const durationMs = Math.round(performance.now() - started);
    await protectNewTenantRelations(session, folder, log);
    await recordApplied(session, { name: folder.name, variant, checksum: script.checksum, durationMs });
    await session.exec("COMMIT");
    return script;
  } catch (error) {
    // A session the server ended (FATAL) has rolled back already and takes no ROLLBACK; the
    // error to report is the one that ended it.
    await session.exec("ROLLBACK").catch(() => {});
    throw error;
  }
}

/**
 * Tenant isolation by construction: once migration 20261128150000_grafana_login_binding has
 * defined it, every migration ends, in its own transaction, with a call that gives any tenant
 * relation (schema public, an org_id column) without its walls the same row-level security or
 * view walls as spindle_protect_tenant_relation, so one a migration forgets is never left open.
 */
async function protectNewTenantRelations(session: MigrationSession, folder: MigrationFolder, log: (line: string) => void) {
  const [defined] = (
    await session.query<{ fn: string | null }>("SELECT to_regprocedure('spindle_protect_new_tenant_relations()')::text AS fn")
  ).rows;
  if (!defined?.fn) return;
  const [result] = (await session.query<{ protected: string[] }>("SELECT spindle_protect_new_tenant_relations() AS protected")).rows;
  if (result && result.protected.length > 0) {
    log(
      `${folder.name} left ${result.protected.join(", ")} without tenant protection: protected now ` +
        "(call spindle_protect_tenant_relation in the migration to say so)",
    );
  }
}

export function variantFor(mode: TimeseriesMode): MigrationVariant {
  return mode === "timescaledb" ? "timescale" : "plain";
}

async function verifyApplied(folders: MigrationFolder[], applied: Map<string, AppliedMigration>): Promise<void> {
  const known = new Map(folders.map((folder) => [folder.name, folder]));
  const problems: string[] = [];
  for (const record of applied.values()) {
    const folder = known.get(record.name);
    if (!folder) {
      problems.push(
        `${record.name} is applied to the database but missing from the migrations folder: ` +
          "this code is older than the database. Deploy the release that added it.",
      );
      continue;
    }
    const script = await loadScript(folder, record.variant);
    if (script.checksum !== record.checksum) {
      problems.push(
        `${record.name}/${record.variant}.sql (with its includes) changed after it was applied ` +
          `(applied ${record.checksum.slice(0, 12)}, now ${script.checksum.slice(0, 12)}). ` +
          "Applied migrations must not change: restore the file and put the change in a new migration folder.",
      );
    }
  }
  if (problems.length > 0) {
    throw new MigrationError(`refusing to migrate:\n  - ${problems.join("\n  - ")}`);
  }
}

/** Points at the failing line of the expanded script, which is what PostgreSQL's position counts. */
function describeSqlFailure(folder: MigrationFolder, script: MigrationScript, error: unknown): MigrationError {
  const pgError = error as { message?: string; position?: string; hint?: string; detail?: string };
  const parts = [`migration ${folder.name} (${script.variant}.sql) failed: ${pgError.message ?? String(error)}`];
  const position = Number(pgError.position);
  if (Number.isInteger(position) && position > 0) {
    const line = script.sql.slice(0, position).split("\n").length;
    parts.push(`at line ${line} of the expanded script: ${script.sql.split("\n")[line - 1]?.trim()}`);
  }
  if (pgError.detail) parts.push(`detail: ${pgError.detail}`);
  if (pgError.hint) parts.push(`hint: ${pgError.hint}`);
  parts.push("Nothing of this migration was applied.");
  return new MigrationError(parts.join("\n"), { cause: error });
}
