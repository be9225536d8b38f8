import { readdirSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultMigrationsDir } from "../../src/migrate/index.js";

/** A private copy of the real migrations that a test may edit (to prove edits are refused). */
export async function copyOfMigrations(): Promise<{ dir: string; remove(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "spindle-migrations-"));
  const dir = join(root, "migrations");
  await cp(defaultMigrationsDir, dir, { recursive: true });
  return { dir, remove: () => rm(root, { recursive: true, force: true }) };
}

/** Sample rows for disk_io: one per device and 10-second interval, deterministic values. */
export function diskIoRows(options: {
  orgId: string;
  serverId: string;
  device: string;
  from: Date;
  count: number;
  seed?: number;
}): unknown[][] {
  const rows: unknown[][] = [];
  for (let i = 0; i < options.count; i++) {
    const n = i + 1 + (options.seed ?? 0);
    const time = new Date(options.from.getTime() + i * 10_000);
    rows.push([
      time,
      options.orgId,
      options.serverId,
      options.device,
      10,
      100 * n,
      50 * n,
      4096 * n,
      8192 * n,
      n,
      2 * n,
      3 * n,
      5 * n,
      7 * n,
      11 * n,
      n % 4,
    ]);
  }
  return rows;
}

export const diskIoColumns =
  "time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes, " +
  "read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress";

/** A multi-row INSERT statement and its parameters. */
export function insertStatement(table: string, columns: string, rows: unknown[][]): { text: string; params: unknown[] } {
  const width = columns.split(",").length;
  const tuples = rows.map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(", ")})`);
  return { text: `INSERT INTO ${table} (${columns}) VALUES ${tuples.join(", ")}`, params: rows.flat() };
}

/**
 * Every migration folder, in the order the runner applies them: read from the folder, so a new
 * migration does not need editing here (the runner's own folder rules are tested elsewhere).
 */
export const allMigrations = readdirSync(defaultMigrationsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && /^\d{14}_[a-z0-9_]+$/.test(entry.name))
  .map((entry) => entry.name)
  .sort();
