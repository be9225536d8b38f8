// The TypeScript of the metric families (packages/domain/src/metrics/families-data.ts): the
// descriptors the worker's plain-mode rollups and retention are built from, the union of table
// names, and per family the row types as node-postgres returns them and the COPY column list.
import { aggregateSql } from "./sql.mjs";
import { camelName, goName } from "./model.mjs";

/** An hour recomputed from its minutes (families whose hours cannot take only the change). */
function fromMinutesSql(a) {
  const cast = a.type === "bigint" ? "::bigint" : "";
  switch (a.merge) {
    case "sum":
      return `sum(s.${a.name})${cast}`;
    case "max":
    case "min":
      return `${a.merge}(s.${a.name})`;
    case "mean":
      return `(sum(s.${a.name}::numeric * s.samples) / sum(s.samples) FILTER (WHERE s.${a.name} IS NOT NULL))::bigint`;
  }
  throw new Error(`unknown merge ${a.merge}`);
}

function descriptor(f) {
  const base = { table: f.table, migration: f.migration, kind: f.kind, what: f.what };
  if (f.kind === "list") return { ...base, columns: f.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.null })) };
  return {
    ...base,
    keys: f.keys.map((k) => k.name),
    columns: f.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.null, role: c.role })),
    aggregates:
      f.aggregates?.map((a) => ({
        name: a.name,
        type: a.type,
        nullable: a.null,
        fn: a.fn,
        args: a.args,
        merge: a.merge,
        fromRaw: aggregateSql(a, "s."),
        fromMinutes: fromMinutesSql(a),
      })) ?? null,
    storage: f.storage,
  };
}

const tsType = (c) => {
  const base = {
    bigint: "string",
    integer: "number",
    smallint: "number",
    "double precision": "number",
    text: "string",
    uuid: "string",
    timestamptz: "Date",
  }[c.type];
  return c.null ? `${base} | null` : base;
};

function rowTypes(f) {
  const pascal = goName(f.table).replace(/IO/g, "Io").replace(/FS/g, "Fs").replace(/SQL/g, "Sql");
  const out = [
    `/** A row of ${f.table} as node-postgres returns it (bigint as text): ${f.what}. */`,
    `export interface ${pascal}Row {`,
    ...f.columns.map((c) => `  ${c.name}: ${tsType(c)};`),
    "}",
    "",
    `/** The columns of ${f.table}, in table order (COPY). */`,
    `export const ${camelName(f.table)}Columns = ${JSON.stringify(f.columns.map((c) => c.name))} as const;`,
    "",
  ];
  if (f.aggregates) {
    out.push(
      `/** A bucket of ${f.table}_1m or ${f.table}_1h as node-postgres returns it. */`,
      `export interface ${pascal}Bucket {`,
      "  bucket: Date;",
      "  org_id: string;",
      "  server_id: string;",
      ...f.keys.map((k) => `  ${k.name}: ${tsType(k)};`),
      ...f.aggregates.map((a) => `  ${a.name}: ${tsType(a)};`),
      "}",
      "",
    );
  }
  return out;
}

export function renderTypeScriptFamilies(families, header) {
  const generated = families.filter((f) => !f.handWritten);
  return [
    `// ${header}`,
    'import type { FamilyDefinition } from "./family-types.js";',
    "",
    "/** Every metric family, in the order of the migrations that created them. */",
    `export const familyCatalogue = ${JSON.stringify(families.map(descriptor), null, 2)} as const satisfies readonly FamilyDefinition[];`,
    "",
    "/** The table of every family (a metric's `table`). */",
    `export type FamilyTable =\n${families.map((f) => `  | ${JSON.stringify(f.table)}`).join("\n")};`,
    "",
    ...generated.flatMap(rowTypes),
  ].join("\n");
}
