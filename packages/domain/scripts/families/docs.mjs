// The docs table of the metric families, between markers in docs/metrics.md.

export const docsBegin =
  "<!-- families:begin (generated from packages/domain/metrics/catalogue.json by packages/domain/scripts/generate-catalogue.mjs; do not edit) -->";
export const docsEnd = "<!-- families:end -->";

const code = (s) => `\`${s}\``;

/** Column names, a group shown as its first and last column. */
function columnList(columns) {
  const out = [];
  for (const c of columns) {
    if (c.group && c.index > 0 && c.index < c.group.count - 1) continue;
    if (c.group && c.index === c.group.count - 1) {
      out[out.length - 1] += ` … ${code(c.name)}`;
      continue;
    }
    out.push(code(c.name) + (c.null ? " (NULL: not measured)" : ""));
  }
  return out.join(", ");
}

function aggregateText(a) {
  const args = a.args.join(", ");
  const what = {
    sum: `sum(${args})`,
    count: `count(${args})`,
    max: `max(${args})`,
    min: `min(${args})`,
    avg: `avg(${args})`,
    sumProduct: `sum(${a.args.join(" × ")})`,
    sumWhereMeasured: `sum(${a.args[0]}) where ${a.args[1]} is measured`,
  }[a.fn];
  return what === `sum(${a.name})` ? code(a.name) : `${code(a.name)} = ${what}`;
}

function row(f) {
  if (f.kind === "list") {
    const columns = f.handWritten ? `see its migration` : columnList(f.columns.slice(2));
    return `| ${code(f.table)} | list: each server's newest | ${columns} | none | replaced by each newer list | ${code(f.migration)} |`;
  }
  const per = ["server", ...f.keys.map((k) => k.name), f.interval ? "interval" : "time"].join(", ");
  const measures = columnList([...f.labels, ...(f.interval ? [{ name: "interval_seconds" }] : []), ...f.measures]);
  const aggregates = f.aggregates
    ? `${code(`${f.table}_1m`)}, ${code(`${f.table}_1h`)}: ${f.aggregates.map(aggregateText).join(", ")}`
    : "none";
  const s = f.storage;
  const kept = f.aggregates ? `raw ${s.keepRaw}, 1 min ${s.keep1m}, 1 h ${s.keep1h}` : `${s.keepRaw}`;
  return `| ${code(f.table)} | ${per} | ${measures} | ${aggregates} | ${kept} | ${code(f.migration)} |`;
}

export function renderDocsTable(families) {
  return [
    docsBegin,
    "| table | one row per | columns | aggregates (sums unless named) | kept | migration |",
    "|---|---|---|---|---|---|",
    ...families.map(row),
    docsEnd,
  ].join("\n");
}

/** docs/metrics.md with its families table replaced by `table`. */
export function withDocsTable(markdown, table) {
  const begin = markdown.indexOf(docsBegin);
  const end = markdown.indexOf(docsEnd);
  if (begin < 0 || end < begin) throw new Error(`docs/metrics.md has no families table markers (${docsBegin} … ${docsEnd})`);
  return markdown.slice(0, begin) + table + markdown.slice(end + docsEnd.length);
}
