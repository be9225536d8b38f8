// The gateway's Go for the metric families (apps/gateway/internal/telemetry/families_gen.go):
// a row type per family the gateway maps by hand, its COPY column list and values, the
// Intervals container that Deep embeds, its row count and its COPYs, and the generic
// (acceleration) families whose columns the catalogue's metrics fill one each.
import { goName } from "./model.mjs";

function goType(c) {
  if (c.type === "text") return "string";
  if (c.type === "timestamptz") return "time.Time";
  const base = { bigint: "int64", integer: "int32", smallint: "int16", "double precision": "float64" }[c.type];
  if (!c.null) return base;
  return base === "int64" ? "Measured" : `sql.Null[${base}]`;
}

/** Struct fields (a column group is one array field), aligned as gofmt aligns them. */
function fields(f) {
  const out = [];
  for (const c of f.columns) {
    if (c.role === "org" || c.role === "server") continue;
    if (c.group) {
      if (c.index === 0) out.push([c.group.go, `[${c.group.count}]int64`]);
      continue;
    }
    out.push([c.go, goType(c)]);
  }
  const width = Math.max(...out.map(([name]) => name.length));
  return out.map(([name, type]) => `\t${name.padEnd(width)} ${type}`);
}

function values(f) {
  return f.columns.map((c) => {
    if (c.role === "org") return "org";
    if (c.role === "server") return "server";
    if (c.group) return `r.${c.group.go}[${c.index}]`;
    return `r.${c.go}`;
  });
}

function rowType(f) {
  const row = f.gateway.row;
  const columns = f.columns.map((c) => JSON.stringify(c.name)).join(", ");
  return `// ${row} is one row of ${f.table}: ${f.what}.
type ${row} struct {
${fields(f).join("\n")}
}

// ${f.gateway.columnsVar} are the columns of ${f.table}, in the order of ${row}.CopyValues.
var ${f.gateway.columnsVar} = []string{${columns}}

// CopyValues is r as a row of ${f.gateway.columnsVar}; server is the server id as the store encodes it.
func (r *${row}) CopyValues(org string, server any) []any {
	return []any{${values(f).join(", ")}}
}
`;
}

export function renderGatewayFamilies(families, header) {
  const typed = families.filter((f) => f.kind === "interval" && (f.gateway.rows === "batch" || f.gateway.rows === "deep"));
  const inIntervals = families.filter((f) => f.kind === "interval" && (f.gateway.rows === "deep" || f.gateway.rows === "accel"));
  const accel = families.filter((f) => f.kind === "interval" && f.gateway.rows === "accel");
  const usesSQL = typed.some((f) => f.columns.some((c) => c.null && c.type !== "bigint"));
  const fieldWidth = Math.max(...inIntervals.map((f) => f.gateway.field.length));
  const sliceType = (f) => (f.gateway.rows === "accel" ? "[]AccelRow" : `[]${f.gateway.row}`);
  const accelVar = (f) => `${goName(f.table)}Family`;
  const accelWidth = Math.max(...accel.map((f) => accelVar(f).length));
  const lines = [
    `// ${header}`,
    "",
    "package telemetry",
    "",
    "import (",
    ...(usesSQL ? ['\t"database/sql"'] : []),
    '\t"time"',
    ")",
    "",
    ...typed.map(rowType),
    "// Intervals holds one batch's rows of the interval families the gateway copies into their",
    '// tables (catalogue.json "families"); Deep embeds it. A nil slice: the batch had none.',
    "type Intervals struct {",
    ...inIntervals.map((f) => `\t${f.gateway.field.padEnd(fieldWidth)} ${sliceType(f)}`),
    "}",
    "",
    "// Rows counts the rows of every family.",
    "func (i *Intervals) Rows() int {",
    `\treturn ${inIntervals.map((f) => `len(i.${f.gateway.field})`).join(" + ")}`,
    "}",
    "",
    "// EachCopy calls add with every row, family by family, as its table's COPY row.",
    "func (i *Intervals) EachCopy(org string, server any, add func(table string, columns []string, row []any)) {",
    ...inIntervals.flatMap((f) =>
      f.gateway.rows === "accel"
        ? [
            `\tfor k := range i.${f.gateway.field} {`,
            `\t\tadd(${accelVar(f)}.Table, ${accelVar(f)}.CopyColumns(), i.${f.gateway.field}[k].CopyValues(org, server))`,
            "\t}",
          ]
        : [
            `\tfor k := range i.${f.gateway.field} {`,
            `\t\tadd(${JSON.stringify(f.table)}, ${f.gateway.columnsVar}, i.${f.gateway.field}[k].CopyValues(org, server))`,
            "\t}",
          ],
    ),
    "}",
    "",
    "// The generic families: each column filled by one catalogue metric without attributes.",
    "var (",
    ...accel.map((f) => `\t${accelVar(f).padEnd(accelWidth)} = accelFamily(${JSON.stringify(f.table)})`),
    ")",
    "",
    "// AccelFamilies lists the generic families, in the order the store writes them.",
    `var AccelFamilies = []*AccelFamily{${accel.map((f) => `&${accelVar(f)}`).join(", ")}}`,
    "",
    "// AccelRows returns the rows of a generic family.",
    "func (i *Intervals) AccelRows(family *AccelFamily) []AccelRow {",
    "\tswitch family {",
    ...accel.flatMap((f) => [`\tcase &${accelVar(f)}:`, `\t\treturn i.${f.gateway.field}`]),
    "\t}",
    "\treturn nil",
    "}",
    "",
    "// SetAccelRows makes rows the rows of a generic family.",
    "func (i *Intervals) SetAccelRows(family *AccelFamily, rows []AccelRow) {",
    "\tswitch family {",
    ...accel.flatMap((f) => [`\tcase &${accelVar(f)}:`, `\t\ti.${f.gateway.field} = rows`]),
    "\t}",
    "}",
    "",
  ];
  return lines.join("\n");
}
