import { z } from "zod";
import { MigrationError } from "./errors.js";
import type { MigrationSession } from "./session.js";

/**
 * How telemetry is stored. `timescaledb`: hypertables, compression, retention and continuous
 * aggregates maintained by TimescaleDB. `plain`: ordinary tables with BRIN indexes and rollup
 * tables maintained by the worker's `rollup` and `retention` jobs.
 */
export const timeseriesModes = ["timescaledb", "plain"] as const;
export type TimeseriesMode = (typeof timeseriesModes)[number];
export const timeseriesModeSchema = z.enum(timeseriesModes);

/** What the operator asks for; `auto` uses TimescaleDB when the server offers the extension. */
export type TimeseriesModeRequest = TimeseriesMode | "auto";
export const timeseriesModeRequestSchema = z.enum(["auto", ...timeseriesModes]);

/** Anything that can run a parameterised query: a pg Pool, Client, PoolClient, or a session. */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

const settingKey = "timeseries_mode";

/**
 * The mode the migrations chose for this database. The console and the worker read it to
 * decide whether rollups are theirs to maintain. Throws when the database was never migrated.
 */
export async function readTimeseriesMode(db: Queryable): Promise<TimeseriesMode> {
  const mode = await findTimeseriesMode(db);
  if (!mode) {
    throw new MigrationError(
      "this database has no time-series mode recorded: it has not been migrated. Run `spindle-db migrate` (or `npm start`) first.",
    );
  }
  return mode;
}

/** Like readTimeseriesMode, but undefined instead of an error when nothing is recorded yet. */
export async function findTimeseriesMode(db: Queryable): Promise<TimeseriesMode | undefined> {
  const table = await db.query("SELECT to_regclass('spindle_settings') IS NOT NULL AS present");
  if (!(table.rows[0] as { present: boolean }).present) return undefined;
  const { rows } = await db.query("SELECT value FROM spindle_settings WHERE key = $1", [settingKey]);
  const row = rows[0] as { value: string } | undefined;
  return row ? timeseriesModeSchema.parse(row.value) : undefined;
}

/**
 * Settles the mode once per database: a recorded mode always wins (switching a populated
 * database between modes is a data migration, not a flag), otherwise the request decides.
 * Runs inside the caller's transaction so the choice and the first telemetry DDL commit together.
 */
export async function settleTimeseriesMode(session: MigrationSession, request: TimeseriesModeRequest): Promise<TimeseriesMode> {
  const stored = await findTimeseriesMode(session);
  if (stored) {
    assertModeRequest(stored, request);
    if (stored === "timescaledb") await createTimescaleExtension(session);
    return stored;
  }
  const available = await timescaleAvailable(session);
  if (request === "timescaledb" && !available) {
    throw new MigrationError(
      "SPINDLE_TIMESERIES_MODE=timescaledb, but this PostgreSQL server does not offer the timescaledb extension. " +
        "Install TimescaleDB on the server, or set SPINDLE_TIMESERIES_MODE=auto to fall back to plain tables.",
    );
  }
  const mode: TimeseriesMode = request === "plain" || !available ? "plain" : "timescaledb";
  if (mode === "timescaledb") await createTimescaleExtension(session);
  await session.query(
    `INSERT INTO spindle_settings (key, value) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [settingKey, mode],
  );
  return mode;
}

/** A database never silently ignores an explicit request for the other mode. */
export function assertModeRequest(stored: TimeseriesMode, request: TimeseriesModeRequest): void {
  if (request !== "auto" && request !== stored) {
    throw new MigrationError(
      `this database already stores telemetry in "${stored}" mode; "${request}" was requested. ` +
        `Unset SPINDLE_TIMESERIES_MODE (or set it to ${stored}) to continue.`,
    );
  }
}

async function timescaleAvailable(session: MigrationSession): Promise<boolean> {
  const { rows } = await session.query<{ available: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb') AS available",
  );
  return rows[0]?.available === true;
}

async function createTimescaleExtension(session: MigrationSession): Promise<void> {
  try {
    await session.exec("CREATE EXTENSION IF NOT EXISTS timescaledb");
  } catch (error) {
    throw new MigrationError(
      `the server offers TimescaleDB but CREATE EXTENSION timescaledb failed: ${(error as Error).message}. ` +
        "TimescaleDB must be in shared_preload_libraries and the migrating role must be allowed to create it; " +
        "or set SPINDLE_TIMESERIES_MODE=plain to store telemetry in plain tables.",
    );
  }
}
