#!/usr/bin/env node
// spindle-db: applies and inspects the SQL migrations. Reads DATABASE_URL (and optionally
// SPINDLE_TIMESERIES_MODE=auto|timescaledb|plain) from the environment.
import { parseCliEnv } from "./cli-env.js";
import { describeDatabaseUrl } from "./connect.js";
import { migrate, migrationStatus } from "./migrate/index.js";

const usage = `usage: spindle-db <command>

commands:
  migrate   apply pending migrations (safe to run from several processes at once)
  status    list migrations and whether each is applied, pending, or changed on disk

environment:
  DATABASE_URL             postgres://user:password@host:5432/database (required)
  SPINDLE_TIMESERIES_MODE  auto (default) | timescaledb | plain; how telemetry is stored
  SPINDLE_CONSOLE_DATABASE_URL, SPINDLE_GATEWAY_DATABASE_URL, SPINDLE_WORKER_DATABASE_URL
                           each service's own URL (its login, spindle_<service>_login, and password):
                           migrate sets those logins' passwords from them`;

async function main(command: string | undefined): Promise<number> {
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    console.log(usage);
    return command === undefined ? 2 : 0;
  }
  if (command !== "migrate" && command !== "status") {
    console.error(`unknown command "${command}"\n\n${usage}`);
    return 2;
  }
  const env = parseCliEnv(process.env);
  const where = describeDatabaseUrl(env.DATABASE_URL);
  if (command === "migrate") {
    const result = await migrate(env.DATABASE_URL, {
      timeseriesMode: env.SPINDLE_TIMESERIES_MODE,
      log: (line) => console.log(`spindle-db: ${line}`),
      serviceDatabaseUrls: {
        console: env.SPINDLE_CONSOLE_DATABASE_URL,
        gateway: env.SPINDLE_GATEWAY_DATABASE_URL,
        worker: env.SPINDLE_WORKER_DATABASE_URL,
      },
    });
    console.log(
      `spindle-db: ${where}: ${result.applied.length} migration(s) applied; time-series mode: ${result.timeseriesMode ?? "not yet chosen"}`,
    );
    return 0;
  }
  const status = await migrationStatus(env.DATABASE_URL);
  console.log(`${where}  time-series mode: ${status.timeseriesMode ?? "not yet chosen"}`);
  for (const entry of status.migrations) {
    const applied = entry.appliedAt ? `  ${entry.variant}.sql  ${entry.appliedAt.toISOString()}` : "";
    console.log(`  ${entry.state.padEnd(8)} ${entry.name}${applied}`);
  }
  const troubled = status.migrations.filter((entry) => entry.state === "changed" || entry.state === "unknown");
  return troubled.length > 0 ? 1 : 0;
}

main(process.argv[2]).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`spindle-db: error: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
