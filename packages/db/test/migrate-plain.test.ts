// The migrations on plain PostgreSQL (no TimescaleDB): what they create, and how the runner
// behaves when re-run, raced, or handed an edited or unknown migration.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { defaultMigrationsDir, migrate, migrationStatus, readTimeseriesMode } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { aggregateColumnsQuery, aggregateShapes, groupColumns } from "./support/aggregate-shapes.js";
import { assertCoveringChartIndex, indexColumnsQuery } from "./support/chart-indexes.js";
import { allMigrations, copyOfMigrations, diskIoColumns, diskIoRows, insertStatement } from "./support/fixtures.js";

const skip = testDatabaseSkipReason();

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe("migrations on plain PostgreSQL", { skip }, () => {
  let db: TestDatabase;

  before(async () => {
    db = await createTestDatabase({ migrated: false, label: "migrate_plain" });
  });
  after(async () => {
    await db?.drop();
  });

  it("applies every migration in plain mode and records name, variant and checksum", async () => {
    const result = await migrate(db.url);
    assert.deepEqual(result.applied, allMigrations);
    assert.equal(result.timeseriesMode, "plain");
    await withClient(db.url, async (client) => {
      assert.equal(await readTimeseriesMode(client), "plain");
      const { rows } = await client.query("SELECT name, variant, checksum FROM schema_migrations ORDER BY name");
      assert.deepEqual(
        rows.map((row) => [row.name, row.variant]),
        allMigrations.map((name) => [name, existsSync(join(defaultMigrationsDir, name, "plain.sql")) ? "plain" : "migration"]),
      );
      for (const row of rows) assert.match(row.checksum, /^[0-9a-f]{64}$/);
    });
  });

  it("creates raw tables with BRIN and org/server/time indexes, and rollup tables of the aggregate shapes", async () => {
    await withClient(db.url, async (client) => {
      const indexes = await client.query(
        `SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('disk_io', 'memory') ORDER BY indexname`,
      );
      const byName = new Map(indexes.rows.map((row) => [row.indexname, row.indexdef as string]));
      assert.match(byName.get("disk_io_time_brin") ?? "", /USING brin \("?time"?\)/);
      assert.match(byName.get("memory_time_brin") ?? "", /USING brin \("?time"?\)/);
      assert.match(byName.get("disk_io_org_server_time_idx") ?? "", /\(org_id, server_id, "?time"? DESC\)/);
      assert.match(byName.get("memory_org_server_time_idx") ?? "", /\(org_id, server_id, "?time"? DESC\)/);

      const shapes = groupColumns((await client.query(aggregateColumnsQuery)).rows);
      assert.deepEqual(shapes, aggregateShapes);
      const keys = await client.query(
        `SELECT c.relname AS table, pg_get_constraintdef(k.oid) AS key FROM pg_constraint k
         JOIN pg_class c ON c.oid = k.conrelid WHERE k.contype = 'p' AND c.relname ~ '^(disk_io|memory)_1[mh]$' ORDER BY 1`,
      );
      assert.deepEqual(keys.rows, [
        { table: "disk_io_1h", key: "PRIMARY KEY (org_id, server_id, bucket, device)" },
        {
          table: "disk_io_1m",
          key: "PRIMARY KEY (org_id, server_id, bucket, device) INCLUDE (interval_seconds, read_ops, write_ops, read_bytes, write_bytes, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms)",
        },
        { table: "memory_1h", key: "PRIMARY KEY (org_id, server_id, bucket)" },
        {
          table: "memory_1m",
          key: "PRIMARY KEY (org_id, server_id, bucket) INCLUDE (total_bytes, available_bytes, cached_bytes, dirty_bytes, samples)",
        },
      ]);
    });
  });

  it("answers the 24 h chart from the 1-minute rollups' primary keys alone (covering)", async () => {
    for (const aggregate of ["disk_io_1m", "memory_1m"] as const) {
      const { rows } = await withClient(db.url, (client) => client.query(indexColumnsQuery, [aggregate]));
      assertCoveringChartIndex(aggregate, rows);
    }
  });

  it("queues one pending rollup range per insert statement and server, for INSERT and COPY alike", async () => {
    const serverA = "00000000-0000-4000-8000-00000000000a";
    const serverB = "00000000-0000-4000-8000-00000000000b";
    const from = new Date("2026-11-20T10:00:05Z");
    await withClient(db.url, async (client) => {
      const rows = [
        ...diskIoRows({ orgId: "org-1", serverId: serverA, device: "sda", from, count: 6 }),
        ...diskIoRows({ orgId: "org-1", serverId: serverB, device: "nvme0n1", from, count: 3 }),
      ];
      const insert = insertStatement("disk_io", diskIoColumns, rows);
      await client.query(insert.text, insert.params);
      const pending = await client.query("SELECT source, server_id, first_time, last_time FROM rollup_pending ORDER BY server_id");
      assert.deepEqual(pending.rows, [
        { source: "disk_io", server_id: serverA, first_time: from, last_time: new Date("2026-11-20T10:00:55Z") },
        { source: "disk_io", server_id: serverB, first_time: from, last_time: new Date("2026-11-20T10:00:25Z") },
      ]);
      await client.query("DELETE FROM rollup_pending");
    });

    // psql's \copy speaks COPY FROM STDIN, the protocol the gateway writes with.
    const csv =
      "2026-11-20T09:00:10Z,org-1,00000000-0000-4000-8000-00000000000a,8000000000,4000000000,2000000000,1000000000,500000000,0,0,0\n" +
      "2026-11-20T09:00:20Z,org-1,00000000-0000-4000-8000-00000000000a,8000000000,4000000000,2000000000,1000000000,500000000,0,0,0\n";
    await copyWithPsql(db.url, "memory", csv);
    await withClient(db.url, async (client) => {
      const pending = await client.query("SELECT source, org_id, first_time, last_time FROM rollup_pending");
      assert.deepEqual(pending.rows, [
        { source: "memory", org_id: "org-1", first_time: new Date("2026-11-20T09:00:10Z"), last_time: new Date("2026-11-20T09:00:20Z") },
      ]);
    });
  });

  it("does nothing on a second run", async () => {
    const result = await migrate(db.url);
    assert.deepEqual(result.applied, []);
    const status = await migrationStatus(db.url);
    assert.deepEqual(
      status.migrations.map((entry) => entry.state),
      allMigrations.map(() => "applied"),
    );
  });

  it("refuses a different time-series mode once one is recorded", async () => {
    await assert.rejects(migrate(db.url, { timeseriesMode: "timescaledb" }), /already stores telemetry in "plain" mode/);
  });
});

describe("migration runner safety", { skip }, () => {
  it("refuses to run when an applied migration's included file changed", async () => {
    const db = await createTestDatabase({ migrated: false, label: "migrate_checksum" });
    const migrations = await copyOfMigrations();
    try {
      await migrate(db.url, { migrationsDir: migrations.dir });
      await appendFile(join(migrations.dir, "20261121080100_telemetry", "tables.sql"), "\n-- an innocent comment\n");
      await assert.rejects(
        migrate(db.url, { migrationsDir: migrations.dir }),
        /20261121080100_telemetry\/plain\.sql \(with its includes\) changed after it was applied/,
      );
      const status = await migrationStatus(db.url, { migrationsDir: migrations.dir });
      assert.deepEqual(
        status.migrations.map((entry) => entry.state),
        ["applied", "changed", ...allMigrations.slice(2).map(() => "applied")],
      );
    } finally {
      await migrations.remove();
      await db.drop();
    }
  });

  it("refuses to run when the database has a migration this code does not know", async () => {
    const db = await createTestDatabase({ migrated: false, label: "migrate_unknown" });
    try {
      await migrate(db.url);
      await withClient(db.url, (client) =>
        client.query(
          "INSERT INTO schema_migrations (name, variant, checksum, duration_ms) VALUES ('29990101000000_future', 'migration', 'x', 0)",
        ),
      );
      await assert.rejects(migrate(db.url), /29990101000000_future is applied to the database but missing/);
    } finally {
      await db.drop();
    }
  });

  it("rolls back a failing migration completely and names the failing line", async () => {
    const db = await createTestDatabase({ migrated: false, label: "migrate_failure" });
    const migrations = await copyOfMigrations();
    try {
      const broken = join(migrations.dir, "20261121090000_broken");
      await mkdir(broken);
      await writeFile(join(broken, "migration.sql"), "CREATE TABLE half_done (id int);\nSELECT no_such_column FROM half_done;\n");
      await assert.rejects(migrate(db.url, { migrationsDir: migrations.dir }), (error: Error) => {
        assert.match(error.message, /20261121090000_broken \(migration\.sql\) failed: column "no_such_column" does not exist/);
        assert.match(error.message, /at line 2 of the expanded script: SELECT no_such_column FROM half_done;/);
        return true;
      });
      await withClient(db.url, async (client) => {
        const table = await client.query("SELECT to_regclass('half_done') AS oid");
        assert.equal(table.rows[0].oid, null);
        const names = await client.query("SELECT name FROM schema_migrations ORDER BY name");
        assert.deepEqual(
          names.rows.map((row) => row.name),
          ["20261121080000_relational", "20261121080100_telemetry"],
        );
      });
    } finally {
      await migrations.remove();
      await db.drop();
    }
  });

  it("reports why when the server ends the session mid-migration, instead of crashing on the dead connection", async () => {
    // What CREATE EXTENSION timescaledb does on a server that offers the extension without
    // preloading it (FATAL: extension "timescaledb" must be preloaded), found on a real server.
    const db = await createTestDatabase({ migrated: false, label: "migrate_fatal" });
    const migrations = await copyOfMigrations();
    try {
      const fatal = join(migrations.dir, "20261121090000_fatal");
      await mkdir(fatal);
      await writeFile(join(fatal, "migration.sql"), "CREATE TABLE half_done (id int);\nSELECT pg_terminate_backend(pg_backend_pid());\n");
      await assert.rejects(migrate(db.url, { migrationsDir: migrations.dir }), (error: Error) => {
        assert.match(error.message, /20261121090000_fatal \(migration\.sql\) failed: terminating connection due to administrator command/);
        return true;
      });
      await withClient(db.url, async (client) => {
        const table = await client.query("SELECT to_regclass('half_done') AS oid");
        assert.equal(table.rows[0].oid, null);
      });
    } finally {
      await migrations.remove();
      await db.drop();
    }
  });

  it("lets concurrent runs race safely: each migration is applied exactly once", async () => {
    const db = await createTestDatabase({ migrated: false, label: "migrate_race" });
    try {
      const results = await Promise.all([migrate(db.url), migrate(db.url), migrate(db.url)]);
      const applied = results.flatMap((result) => result.applied).sort();
      assert.deepEqual(applied, allMigrations);
      await withClient(db.url, async (client) => {
        const count = await client.query("SELECT count(*)::int AS n FROM schema_migrations");
        assert.equal(count.rows[0].n, allMigrations.length);
      });
    } finally {
      await db.drop();
    }
  });

  it("refuses timescaledb mode on a server without the extension, saying what to do", async () => {
    const db = await createTestDatabase({ migrated: false, label: "migrate_no_timescale" });
    try {
      await assert.rejects(migrate(db.url, { timeseriesMode: "timescaledb" }), /does not offer the timescaledb extension/);
      const status = await migrationStatus(db.url);
      assert.equal(status.timeseriesMode, undefined);
      assert.deepEqual(
        status.migrations.map((entry) => entry.state),
        ["applied", ...allMigrations.slice(1).map(() => "pending")],
      );
    } finally {
      await db.drop();
    }
  });
});

async function copyWithPsql(url: string, table: string, csv: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = execFile("psql", [url, "-v", "ON_ERROR_STOP=1", "-c", `\\copy ${table} FROM STDIN WITH (FORMAT csv)`], (error) =>
      error ? reject(error) : resolve(),
    );
    child.stdin?.end(csv);
  });
}
