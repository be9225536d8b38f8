// The metric families of catalogue.json ("families"), checked and expanded into the one model
// every renderer (SQL for both storage modes, Go, TypeScript, docs) reads. A family is a table:
// an interval family holds one row per server, interval and key (device, operation, …) with its
// measures, and its 1-minute and 1-hour aggregates; a list family holds each server's newest list.

const sqlTypes = new Set(["bigint", "double precision", "integer", "smallint", "text", "timestamptz"]);
const gatewayRows = new Set(["batch", "deep", "accel", "state"]);
const aggregateFns = new Set(["sum", "count", "max", "min", "avg", "sumProduct", "sumWhereMeasured"]);
const storageDefaults = { chunk: "1 day", compressAfter: "3 days", keepRaw: "30 days", keep1m: "90 days", keep1h: "2 years" };
const identifier = /^[a-z][a-z0-9_]*$/;

/** CamelCase of a snake_case name, with the initialisms Go spells in capitals. */
export function goName(snake) {
  const initialisms = { io: "IO", fs: "FS", id: "ID", sql: "SQL", mrc: "MRC" };
  return snake
    .split("_")
    .map((part) => initialisms[part] ?? part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

/** camelCase of a snake_case name. */
export function camelName(snake) {
  const pascal = snake
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

/** A declared column, or a group of them (`count` columns name_00, name_01, …), as columns. */
function expandColumn(column, role, problems, where) {
  if (!identifier.test(column.name ?? "")) problems.push(`${where}: column name ${JSON.stringify(column.name)} must be snake_case`);
  if (!sqlTypes.has(column.type))
    problems.push(`${where}: column ${column.name} has type ${column.type}; use one of ${[...sqlTypes].join(", ")}`);
  if (column.count !== undefined) {
    if (!Number.isInteger(column.count) || column.count < 2 || column.count > 100)
      problems.push(`${where}: group ${column.name} needs a count of 2 to 100`);
    if (column.null || column.check) problems.push(`${where}: group ${column.name} columns are NOT NULL and unchecked`);
    const group = { name: column.name, count: column.count, go: column.go ?? `${goName(column.name)}s` };
    return Array.from({ length: column.count }, (_, i) => ({
      name: `${column.name}_${String(i).padStart(2, "0")}`,
      type: column.type,
      null: false,
      check: null,
      role,
      group,
      index: i,
    }));
  }
  return [
    {
      name: column.name,
      type: column.type,
      null: column.null === true,
      check: column.check ?? null,
      role,
      go: column.go ?? goName(column.name),
    },
  ];
}

function aggregateOf(spec, columnsByName, problems, where) {
  const [name, fn, ...args] = spec;
  if (!identifier.test(name ?? "")) problems.push(`${where}: aggregate name ${JSON.stringify(name)} must be snake_case`);
  if (!aggregateFns.has(fn)) problems.push(`${where}: aggregate ${name} uses ${fn}; use one of ${[...aggregateFns].join(", ")}`);
  const operands = args.length > 0 ? args : [fn === "count" ? "*" : name];
  const sources = operands
    .filter((a) => a !== "*")
    .map((a) => {
      const column = columnsByName.get(a);
      if (!column) problems.push(`${where}: aggregate ${name} reads ${a}, which is not a column of the table`);
      return column ?? { name: a, type: "bigint", null: true };
    });
  const [first, second] = sources;
  const wantArgs = { sumProduct: 2, sumWhereMeasured: 2 }[fn] ?? 1;
  if (operands.length !== wantArgs) problems.push(`${where}: aggregate ${name} (${fn}) takes ${wantArgs} column(s)`);
  const integral = (type) => type === "bigint" || type === "integer";
  let type;
  let nullable;
  switch (fn) {
    case "count":
      type = "bigint";
      nullable = false;
      break;
    case "sum":
      type = integral(first?.type) ? "bigint" : "double precision";
      nullable = first?.null ?? true;
      break;
    case "avg":
      type = "bigint";
      nullable = first?.null ?? true;
      break;
    case "max":
    case "min":
      type = first?.type;
      nullable = first?.null ?? true;
      break;
    case "sumProduct":
      type = sources.every((s) => integral(s.type)) ? "bigint" : "double precision";
      nullable = sources.some((s) => s.null);
      break;
    case "sumWhereMeasured":
      type = integral(first?.type) ? "bigint" : "double precision";
      nullable = true;
      break;
  }
  if ((fn === "avg" || fn === "sum") && first && !["bigint", "integer", "double precision"].includes(first.type)) {
    problems.push(`${where}: aggregate ${name} takes the ${fn} of ${first.name}, a ${first.type}`);
  }
  if (fn === "avg" && first && !integral(first.type))
    problems.push(`${where}: avg rounds to whole numbers; ${first.name} is not an integer column`);
  if (fn === "sumWhereMeasured" && second && !second.null)
    problems.push(`${where}: ${name} sums where ${second.name} is measured, but it is NOT NULL`);
  const merge = { sum: "sum", count: "sum", max: "max", min: "min", avg: "mean", sumProduct: "sum", sumWhereMeasured: "sum" }[fn];
  return { name, fn, args: operands, type, null: nullable, merge, sourceTypes: sources.map((s) => s.type) };
}

/** Throws with every problem of the families; returns them expanded, in declaration order. */
export function familiesOf(catalogue) {
  const problems = [];
  const families = [];
  const tables = new Set();
  let previousMigration = "";
  for (const declared of catalogue.families ?? []) {
    const where = `family ${declared.table ?? "(no table)"}`;
    if (!identifier.test(declared.table ?? "")) problems.push(`${where}: table must be snake_case`);
    if (tables.has(declared.table)) problems.push(`${where}: declared twice`);
    tables.add(declared.table);
    if (!/^\d{14}_[a-z0-9_]+$/.test(declared.migration ?? ""))
      problems.push(`${where}: migration must name its folder (yyyymmddhhmmss_what)`);
    if (declared.migration < previousMigration)
      problems.push(
        `${where}: families are listed in the order of their migrations (${declared.migration} comes before ${previousMigration})`,
      );
    previousMigration = declared.migration ?? previousMigration;
    if (!declared.what) problems.push(`${where}: what (one line for docs/metrics.md) is required`);
    const handWritten = declared.ddl === "hand-written";
    if (declared.kind === "list") {
      families.push(listFamily(declared, handWritten, problems, where));
    } else if (declared.kind === "interval") {
      families.push(intervalFamily(declared, problems, where));
    } else {
      problems.push(`${where}: kind must be interval or list`);
    }
  }
  if (problems.length > 0) throw new Error(`metrics/catalogue.json families are not valid:\n  ${problems.join("\n  ")}`);
  return families;
}

function listFamily(declared, handWritten, problems, where) {
  const family = { table: declared.table, migration: declared.migration, kind: "list", what: declared.what, handWritten, aggregates: null };
  if (handWritten) return { ...family, columns: [], primaryKey: [] };
  const columns = [
    { name: "org_id", type: "text", null: false, check: null, role: "org" },
    { name: "server_id", type: "uuid", null: false, check: null, role: "server" },
    ...(declared.columns ?? []).flatMap((c) => expandColumn(c, "column", problems, where)),
  ];
  const names = new Set(columns.map((c) => c.name));
  for (const key of declared.primaryKey ?? []) if (!names.has(key)) problems.push(`${where}: primary key column ${key} is not a column`);
  if (!(declared.primaryKey ?? []).length) problems.push(`${where}: a list needs its primary key after (org_id, server_id)`);
  return { ...family, columns, primaryKey: ["org_id", "server_id", ...(declared.primaryKey ?? [])] };
}

function intervalFamily(declared, problems, where) {
  const interval = declared.interval !== false;
  const keys = (declared.keys ?? []).flatMap((c) => expandColumn(c, "key", problems, where));
  const labels = (declared.labels ?? []).flatMap((c) => expandColumn(c, "label", problems, where));
  const measures = (declared.measures ?? []).flatMap((c) => expandColumn(c, "measure", problems, where));
  if (measures.length === 0) problems.push(`${where}: an interval family needs measures`);
  // A key is a name (device, operation) or a small number (a hash bucket); labels are names.
  for (const c of keys) if (c.type !== "text" && c.type !== "smallint") problems.push(`${where}: key ${c.name} must be text or smallint`);
  for (const c of labels) if (c.type !== "text") problems.push(`${where}: label ${c.name} must be text`);
  const columns = [
    { name: "time", type: "timestamptz", null: false, check: null, role: "time", go: "Time" },
    { name: "org_id", type: "text", null: false, check: null, role: "org" },
    { name: "server_id", type: "uuid", null: false, check: null, role: "server" },
    ...keys,
    ...labels,
    ...(interval
      ? [
          {
            name: "interval_seconds",
            type: "double precision",
            null: false,
            check: "interval_seconds > 0",
            role: "interval",
            go: "IntervalSeconds",
          },
        ]
      : []),
    ...measures,
  ];
  const byName = new Map(columns.map((c) => [c.name, c]));
  if (byName.size !== columns.length) problems.push(`${where}: a column is declared twice`);
  let aggregates = null;
  if (declared.aggregates !== "none") {
    const specs = Array.isArray(declared.aggregates)
      ? declared.aggregates
      : [...(interval ? [["interval_seconds", "sum"]] : []), ...measures.map((m) => [m.name, "sum"]), ["samples", "count"]];
    aggregates = specs.map((spec) => aggregateOf(spec, byName, problems, where));
    const names = new Set(aggregates.map((a) => a.name));
    if (names.size !== aggregates.length) problems.push(`${where}: an aggregate column is declared twice`);
    if (
      aggregates.some((a) => a.merge === "mean") &&
      !aggregates.some((a) => a.name === "samples" && a.fn === "count" && a.args[0] === "*")
    ) {
      problems.push(`${where}: an hour of averages weighs its minutes by samples: add ["samples", "count"]`);
    }
    for (const key of keys) if (names.has(key.name)) problems.push(`${where}: aggregate ${key.name} is also a key`);
  }
  const storage = { ...storageDefaults, ...(declared.storage ?? {}) };
  const chartColumns = declared.chartColumns ?? [];
  for (const c of chartColumns)
    if (!aggregates?.some((a) => a.name === c)) problems.push(`${where}: chart column ${c} is not an aggregate column`);
  const segmentBy = declared.compressSegmentBy ?? ["org_id", "server_id", ...keys.map((k) => k.name)];
  // How rows are ordered inside a compressed segment: newest first, then any key the family names
  // (a key left out of the segments, such as a hash bucket, keeps its rows together).
  const orderBy = declared.compressOrderBy ?? ["time DESC"];
  const gateway = declared.gateway ?? {};
  if (!gatewayRows.has(gateway.rows)) problems.push(`${where}: gateway.rows must be one of ${[...gatewayRows].join(", ")}`);
  const pascal = goName(declared.table);
  return {
    table: declared.table,
    migration: declared.migration,
    kind: "interval",
    what: declared.what,
    handWritten: false,
    interval,
    keys,
    labels,
    measures,
    columns,
    checks: declared.checks ?? [],
    aggregates,
    chartColumns,
    segmentBy,
    orderBy,
    serverIndexKeys: declared.serverIndexKeys ?? [],
    storage,
    gateway: {
      rows: gateway.rows,
      row: gateway.row ?? `${pascal}Row`,
      field: gateway.field ?? pascal,
      columnsVar: `${(gateway.row ?? `${pascal}Row`).replace(/Row$/, "")}Columns`,
    },
  };
}

/** The interval families that have 1-minute and 1-hour aggregates (rollup_pending sources). */
export const rolledUp = (families) => families.filter((f) => f.kind === "interval" && f.aggregates);

/** Whether every hour column merges its minutes by sum or maximum (the worker's incremental path). */
export const mergeable = (family) => family.aggregates.every((a) => a.merge === "sum" || a.merge === "max");
