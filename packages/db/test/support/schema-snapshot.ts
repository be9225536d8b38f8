// What the catalogs say about a set of relations, normalised so that two databases built in
// different ways compare equal exactly when their schemas are the same: columns (name, type,
// NULL, default, order), constraints, indexes, triggers, row-level security, grants, the
// spindle_tenant views, and in TimescaleDB mode the hypertables, compression, jobs and continuous
// aggregates (internal ids and generated numbers removed). Used by families-schema.test.ts.
import { readFileSync } from "node:fs";

export interface Queryable {
  query<Row>(text: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

/** The relations a generated schema file creates, tables and continuous aggregates alike. */
export function relationsOf(schemaFile: URL): { tables: string[]; aggregates: string[] } {
  const sql = readFileSync(schemaFile, "utf8");
  return {
    tables: [...sql.matchAll(/^CREATE TABLE (\w+) \(/gm)].map((m) => m[1]!),
    aggregates: [...sql.matchAll(/^CREATE MATERIALIZED VIEW (\w+)$/gm)].map((m) => m[1]!),
  };
}

/** TimescaleDB numbers its internal objects: _materialized_hypertable_12, cagg_watermark(12)… */
const withoutIds = (s: string | null) =>
  (s ?? "")
    .replace(/_hypertable_\d+/g, "_hypertable_N")
    .replace(/\(\d+\)/g, "(N)")
    .replace(/\s+/g, " ");

async function rows<Row>(db: Queryable, text: string, params: unknown[]): Promise<Row[]> {
  return (await db.query<Row>(text, params)).rows;
}

export async function snapshot(db: Queryable, relations: string[], timescale: boolean): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const names = [...relations].sort();
  out.relations = await rows(
    db,
    `
    SELECT c.relname, c.relkind, c.relrowsecurity, c.relforcerowsecurity,
           array(SELECT a::text FROM unnest(coalesce(c.relacl, '{}')) a ORDER BY 1) AS acl
    FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) ORDER BY c.relname`,
    [names],
  );
  out.columns = await rows(
    db,
    `
    SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
           pg_get_expr(d.adbin, d.adrelid) AS default_value
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`,
    [names],
  );
  out.constraints = await rows(
    db,
    `
    SELECT c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid) AS definition
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
    WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) ORDER BY c.relname, k.conname`,
    [names],
  );
  out.indexes = await rows(
    db,
    `
    SELECT c.relname, i.relname AS index, pg_get_indexdef(i.oid) AS definition
    FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
    WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) ORDER BY c.relname, i.relname`,
    [names],
  );
  out.triggers = await rows(
    db,
    `
    SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid) AS definition
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) AND NOT t.tgisinternal
      AND t.tgname NOT LIKE 'ts_%' ORDER BY c.relname, t.tgname`,
    [names],
  );
  out.policies = await rows(
    db,
    `
    SELECT tablename, policyname, permissive, roles::text AS roles, cmd, qual, with_check
    FROM pg_policies WHERE schemaname = 'public' AND tablename = ANY($1) ORDER BY tablename, policyname`,
    [names],
  );
  const views = await rows<{ viewname: string; definition: string; acl: string[] }>(
    db,
    `
    SELECT v.viewname, v.definition,
           array(SELECT a::text FROM unnest(coalesce(c.relacl, '{}')) a ORDER BY 1) AS acl
    FROM pg_views v JOIN pg_class c ON c.relname = v.viewname AND c.relnamespace = 'spindle_tenant'::regnamespace
    WHERE v.schemaname = 'spindle_tenant' AND v.viewname = ANY($1) ORDER BY v.viewname`,
    [names],
  );
  // The tenant views are made by spindle_protect_tenant_relation, not by the declaration; since
  // 20261128150000_grafana_login_binding it names the table `source` in them, so a family made
  // before that migration has the same view without the alias. Both read the same rows.
  out.tenantViews = views.map((v) => ({ ...v, definition: withoutSourceAlias(withoutIds(v.definition)) }));
  if (!timescale) {
    out.rollupSources = await rows(
      db,
      `
      SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'rollup_pending_source_check'`,
      [],
    );
    return out;
  }
  out.dimensions = await rows(
    db,
    `
    SELECT hypertable_name, column_name, time_interval::text AS chunk FROM timescaledb_information.dimensions
    WHERE hypertable_name = ANY($1) ORDER BY hypertable_name`,
    [names],
  );
  out.compression = await rows(
    db,
    `
    SELECT hypertable::text, segmentby, orderby FROM timescaledb_information.hypertable_compression_settings
    WHERE hypertable::text = ANY($1) ORDER BY 1`,
    [names],
  );
  const jobs = await rows<{
    proc_name: string;
    hypertable_name: string;
    schedule_interval: string;
    fixed_schedule: boolean;
    config: Record<string, unknown>;
  }>(
    db,
    `
    SELECT j.proc_name, coalesce(ca.view_name, j.hypertable_name) AS hypertable_name, j.schedule_interval::text AS schedule_interval,
           j.fixed_schedule, j.config
    FROM timescaledb_information.jobs j
    LEFT JOIN timescaledb_information.continuous_aggregates ca
      ON ca.materialization_hypertable_name = j.hypertable_name
    WHERE coalesce(ca.view_name, j.hypertable_name) = ANY($1)`,
    [names],
  );
  out.jobs = jobs
    .map((j) => ({ ...j, config: Object.fromEntries(Object.entries(j.config ?? {}).filter(([k]) => !/_id$/.test(k))) }))
    .sort((a, b) => `${a.hypertable_name} ${a.proc_name}`.localeCompare(`${b.hypertable_name} ${b.proc_name}`));
  const aggregates = await rows<{
    view_name: string;
    materialized_only: boolean;
    view_definition: string;
    materialization_hypertable_name: string;
  }>(
    db,
    `
    SELECT view_name, materialized_only, view_definition, materialization_hypertable_name
    FROM timescaledb_information.continuous_aggregates WHERE view_name = ANY($1) ORDER BY view_name`,
    [names],
  );
  out.aggregates = [];
  for (const a of aggregates) {
    const indexes = await rows<{ definition: string }>(
      db,
      `
      SELECT pg_get_indexdef(x.indexrelid) AS definition FROM pg_index x
      WHERE x.indrelid = format('_timescaledb_internal.%I', $1::text)::regclass ORDER BY 1`,
      [a.materialization_hypertable_name],
    );
    const userView = await rows<{ definition: string }>(
      db,
      `SELECT pg_get_viewdef(format('public.%I', $1::text)::regclass) AS definition`,
      [a.view_name],
    );
    (out.aggregates as unknown[]).push({
      view: a.view_name,
      materializedOnly: a.materialized_only,
      definition: withoutIds(a.view_definition),
      userView: withoutIds(userView[0]?.definition ?? null),
      indexes: indexes.map((i) => withoutIds(i.definition)).sort(),
    });
  }
  return out;
}

/** Drops the relations (aggregates first), so the generated schema can build them again. */
export function dropSql(relations: { tables: string[]; aggregates: string[] }): string {
  return [
    ...relations.aggregates.map((a) => `DROP MATERIALIZED VIEW IF EXISTS ${a} CASCADE;`),
    ...relations.tables.map((t) => `DROP TABLE IF EXISTS ${t} CASCADE;`),
  ].join("\n");
}

/** A tenant view's text as if its table had no alias `source` (see tenantViews above). */
function withoutSourceAlias(definition: string): string {
  const table = / FROM (\w+) source WHERE /.exec(definition)?.[1];
  if (!table) return definition;
  return definition.replace(` FROM ${table} source WHERE `, ` FROM ${table} WHERE `).replace(/\bsource\./g, `${table}.`);
}
