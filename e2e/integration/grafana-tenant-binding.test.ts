// A Grafana login sees its own organisation and nothing else, whatever SQL it sends (Grafana
// lets a Viewer send any SQL to the datasource): on both time-series paths, as each documented
// per-organisation login (support/grafana-databases.ts), every relation that has an org_id, in
// every schema, is read with every trick we know of, and only the login's organisation comes back.
// Issue 25, H1: the organisation used to be a session setting (spindle.org_id) the login could
// change itself; it is now bound to the login (session_user) in a table only the owner writes.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Database, type GrafanaDatabases, openPlainPostgres, openTimescale } from "../support/grafana-databases";

const ours = { orgId: "org-ours", serverId: "7a1c1d0e-2f7a-4c55-9a51-4a4a5b0c0d01", hostname: "ours-db01" };
const theirs = { orgId: "org-theirs", serverId: "7a1c1d0e-2f7a-4c55-9a51-4a4a5b0c0d02", hostname: "theirs-db01" };

/** Schemas of the database system itself: catalogues, no tenant rows (checked below). */
const systemSchemas = ["pg_catalog", "information_schema", "pg_toast"];
/**
 * TimescaleDB's own metadata, readable by every role by design: hypertable and job definitions,
 * no telemetry (chunks live in _timescaledb_internal, which the test reads like any other).
 */
const timescaleMetadataSchemas = [
  "_timescaledb_catalog",
  "_timescaledb_config",
  "_timescaledb_cache",
  "timescaledb_information",
  "timescaledb_experimental",
];
/** TimescaleDB's statistics views and job state, readable by every role: sizes and run times. */
const timescaleMetadataRelations = [
  "_timescaledb_internal.bgw_job_stat",
  "_timescaledb_internal.bgw_policy_chunk_stats",
  "_timescaledb_internal.compressed_chunk_stats",
  "_timescaledb_internal.hypertable_chunk_local_size",
];

const quoteLiteral = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * Ways a session could try to make a relation show another organisation: each runs `setup`
 * first (session state), then reads the relation's org_id column.
 */
const tricks: { name: string; setup: (victim: string) => string[]; read: (relation: string, victim: string) => string }[] = [
  { name: "a plain read", setup: () => [], read: (r) => `SELECT org_id::text AS org FROM ${r}` },
  {
    name: "set_config in a lateral join (the issue's proof)",
    setup: () => [],
    read: (r, victim) => `SELECT s.org FROM (SELECT set_config('spindle.org_id', ${quoteLiteral(victim)}, true)) x
      CROSS JOIN LATERAL (SELECT org_id::text AS org FROM ${r} OFFSET 0) s`,
  },
  {
    name: "SET spindle.org_id for the session",
    setup: (v) => [`SET spindle.org_id = ${quoteLiteral(v)}`],
    read: (r) => `SELECT org_id::text AS org FROM ${r}`,
  },
  {
    name: "SET ROLE NONE (the login itself), with the setting",
    setup: (v) => ["SET ROLE NONE", `SELECT set_config('spindle.org_id', ${quoteLiteral(v)}, false)`],
    read: (r) => `SELECT org_id::text AS org FROM ${r}`,
  },
  {
    name: "SET ROLE spindle_grafana, with the setting",
    setup: (v) => ["SET ROLE spindle_grafana", `SELECT set_config('spindle.org_id', ${quoteLiteral(v)}, false)`],
    read: (r) => `SELECT org_id::text AS org FROM ${r}`,
  },
  {
    name: "the console's search path and setting",
    setup: (v) => ["SET search_path = spindle_tenant, public", `SELECT set_config('spindle.org_id', ${quoteLiteral(v)}, false)`],
    read: (r) => `SELECT org_id::text AS org FROM ${r}`,
  },
];

/** Every relation (in any schema) with an org_id column, schema-qualified and quoted. */
async function tenantRelations(admin: Database): Promise<string[]> {
  const rows = await admin.query(
    `
    SELECT format('%I.%I', n.nspname, c.relname) AS relation FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname <> ALL ($1)
    ORDER BY 1`,
    [systemSchemas],
  );
  return rows.map((r) => String(r.relation));
}

/** The relations `login` may SELECT from (directly or through a role), schema-qualified. */
async function readableRelations(admin: Database, login: string, withOrgId: boolean): Promise<string[]> {
  const rows = await admin.query(
    `
    SELECT format('%I.%I', n.nspname, c.relname) AS relation FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname <> ALL ($1)
      AND has_table_privilege($2, c.oid, 'SELECT')
      AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped) = $3
    ORDER BY 1`,
    [systemSchemas, login, withOrgId],
  );
  return rows.map((r) => String(r.relation));
}

/** What the login reads from `relation` after `trick`: the organisations, or "denied". */
async function attempt(db: Database, trick: (typeof tricks)[number], relation: string, victim: string): Promise<Set<string> | "denied"> {
  for (const statement of trick.setup(victim)) await db.query(statement);
  try {
    const rows = await db.query(trick.read(relation, victim));
    return new Set(rows.map((r) => String(r.org)));
  } catch (error) {
    if (/permission denied/.test((error as Error).message)) return "denied";
    throw new Error(`${relation} (${trick.name}): ${(error as Error).message}`);
  } finally {
    for (const statement of ["RESET ALL", "RESET ROLE", "RESET SESSION AUTHORIZATION"]) await db.query(statement).catch(() => undefined);
  }
}

for (const [mode, open] of [
  ["plain PostgreSQL", openPlainPostgres],
  ["TimescaleDB", openTimescale],
] as const) {
  describe(`Grafana logins on ${mode} are bound to their organisation`, () => {
    let dbs: GrafanaDatabases;
    before(async () => {
      dbs = await open([ours, theirs], { relational: true });
    });
    after(async () => dbs?.close());

    test("the other organisation has rows in every relation a Grafana login can read, so a leak would show", async () => {
      const login = dbs.logins.get(ours.orgId)!.name;
      const readable = await readableRelations(dbs.admin, login, true);
      assert.ok(readable.length >= 50, `expected the telemetry, rollups, servers, alerts and policies; got ${readable.join(", ")}`);
      for (const relation of readable) {
        // Grafana's views show the owner (not a bound login) nothing: count the relation under them.
        const source = relation.replace(/^spindle_grafana_views\./, "public.");
        const [{ n }] = (await dbs.admin.query(`SELECT count(*)::int AS n FROM ${source} WHERE org_id = $1`, [theirs.orgId])) as [
          { n: number },
        ];
        assert.ok(n > 0, `${relation}: add a row of the fixture's organisation to e2e/support/grafana-fixtures.ts (tenantRowsSql)`);
      }
    });

    for (const [self, other] of [
      [ours, theirs],
      [theirs, ours],
    ] as const) {
      test(`${self.orgId}'s login reads only ${self.orgId} from every org_id relation in every schema, whatever the session sets`, async () => {
        const { name, db } = dbs.logins.get(self.orgId)!;
        const relations = await tenantRelations(dbs.admin);
        const readable = new Set(await readableRelations(dbs.admin, name, true));
        const leaks: string[] = [];
        let own = 0;
        for (const relation of relations) {
          for (const trick of tricks) {
            const seen = await attempt(db, trick, relation, other.orgId);
            if (seen === "denied") {
              assert.ok(!(readable.has(relation) && trick === tricks[0]), `${relation} is granted to the login but refused it`);
              continue;
            }
            if (seen.has(self.orgId)) own++;
            for (const org of seen) if (org !== self.orgId) leaks.push(`${relation} via ${trick.name}: ${org}`);
          }
        }
        assert.deepEqual(leaks, [], "another organisation's rows reached a Grafana login");
        assert.ok(own > readable.size, "the login should still read its own organisation's rows");
      });
    }

    test("a function the login writes sees no row of another organisation, even when it runs first", async () => {
      const session = await dbs.connect(ours.orgId);
      try {
        // Cheap enough that the planner would run it before any other filter, and it raises on
        // the first foreign row it is shown: row-level security and the security barrier must
        // filter first.
        await session.query(`CREATE FUNCTION pg_temp.peek(org text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
          BEGIN IF org IS DISTINCT FROM ${quoteLiteral(ours.orgId)} THEN RAISE EXCEPTION 'saw %', org; END IF; RETURN true; END $$`);
        for (const relation of await readableRelations(dbs.admin, dbs.logins.get(ours.orgId)!.name, true)) {
          await session
            .query(`SELECT count(*) FROM ${relation} WHERE pg_temp.peek(org_id::text)`)
            .catch((error: Error) => assert.fail(`${relation}: ${error.message}`));
          await session.query(`SELECT count(*) FROM ${relation} WHERE org_id::text::int = 0`).then(
            () => assert.fail(`${relation}: the cast should fail on our own row`),
            (error: Error) => assert.doesNotMatch(error.message, new RegExp(theirs.orgId), relation),
          );
        }
      } finally {
        await session.close();
      }
    });

    test("statistics, role settings and the bindings reveal nothing of another organisation", async () => {
      const { db } = dbs.logins.get(ours.orgId)!;
      const stats = await db.query(
        `SELECT schemaname, tablename, attname FROM pg_stats
        WHERE concat(most_common_vals::text, histogram_bounds::text) ~ $1`,
        [`${theirs.orgId}|${theirs.hostname}|${theirs.serverId}`],
      );
      assert.deepEqual(stats, [], "pg_stats shows another organisation's values");
      const settings = await db.query("SELECT setconfig::text AS config FROM pg_db_role_setting WHERE setconfig::text ~ $1", [
        theirs.orgId,
      ]);
      assert.deepEqual(settings, [], "another organisation's id is readable in role settings");
      await assert.rejects(db.query("SELECT * FROM spindle_private.grafana_logins"), /permission denied/);
      assert.deepEqual(await db.query("SELECT spindle_grafana_org() AS org"), [{ org: ours.orgId }]);
    });

    test("relations without an org_id that the login can read hold no tenant data", async () => {
      const login = dbs.logins.get(ours.orgId)!.name;
      const readable = await readableRelations(dbs.admin, login, false);
      const outsideMetadata = readable.filter(
        (r) => !timescaleMetadataSchemas.some((s) => r.startsWith(`${s}.`)) && !timescaleMetadataRelations.includes(r),
      );
      assert.deepEqual(outsideMetadata, [], "a relation without org_id is readable by Grafana: give it an org_id or revoke it");
    });

    test("the login cannot rebind itself, write, create objects others run, or use another service's functions", async () => {
      const { name, db } = dbs.logins.get(ours.orgId)!;
      await assert.rejects(db.query("SELECT spindle_bind_grafana_login($1, $2)", [name, theirs.orgId]), /permission denied/);
      await assert.rejects(
        db.query("INSERT INTO spindle_private.grafana_logins VALUES ($1, $2)", [name, theirs.orgId]),
        /permission denied/,
      );
      await assert.rejects(db.query("DELETE FROM servers"), /permission denied/);
      await assert.rejects(db.query("SELECT * FROM spindle_agent_by_credential('\\x00')"), /permission denied/);
      for (const schema of ["public", "spindle_tenant", "spindle_grafana_views", "spindle_private"]) {
        await assert.rejects(db.query(`CREATE TABLE ${schema}.hijack (x int)`), /permission denied/, schema);
      }
      // Security-definer functions run as their owner: the login may run only the one that
      // tells it its own organisation.
      const definers = await dbs.admin.query(
        `SELECT p.oid::regprocedure::text AS fn FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE p.prosecdef AND n.nspname <> ALL ($1) AND has_function_privilege($2, p.oid, 'EXECUTE') ORDER BY 1`,
        [[...systemSchemas, ...timescaleMetadataSchemas, "_timescaledb_functions", "_timescaledb_internal"], name],
      );
      // (spindle_private.cagg_watermark answers where a continuous aggregate's materialisation
      // ends: a timestamp, no tenant data; the filtered views of the aggregates need it.)
      const expected =
        dbs.mode === "TimescaleDB" ? ["spindle_grafana_org()", "spindle_private.cagg_watermark(integer)"] : ["spindle_grafana_org()"];
      assert.deepEqual(
        definers.map((r) => r.fn),
        expected,
      );
      // A default set on its own role changes nothing either (ordinary roles may set their own).
      // (PGlite opens each session from a copy of the data directory, so only plain PostgreSQL
      // shows a new session the default; the binding does not depend on the mode.)
      if (dbs.mode !== "plain PostgreSQL") return;
      await db.query(`ALTER ROLE ${name} SET spindle.org_id = ${quoteLiteral(theirs.orgId)}`).catch(() => undefined);
      const fresh = await dbs.connect(ours.orgId);
      try {
        assert.deepEqual(await fresh.query("SELECT DISTINCT org_id FROM servers"), [{ org_id: ours.orgId }]);
      } finally {
        await fresh.close();
        await dbs.admin.query(`ALTER ROLE ${name} RESET spindle.org_id`);
      }
    });
  });
}
