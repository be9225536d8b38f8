// Builders for the provisioned dashboards: every panel reads through the datasource the
// `organisation` variable picks (one per organisation, each logging in as a spindle_grafana
// member bound to that organisation, see ../README.md), and uses variables only as
// ${name:sqlstring}, so a variable's value is always one quoted literal.

export const datasource = { type: "grafana-postgresql-datasource", uid: "${organisation}" };

/** Which datasource, and so which organisation: the only way to change organisation. */
export const organisationVariable = {
  name: "organisation",
  label: "Organisation",
  type: "datasource",
  query: "grafana-postgresql-datasource",
  // One datasource per organisation, named "Spindle: <organisation>" (README.md).
  regex: "/^Spindle/",
};

export const serverVariable = {
  name: "server",
  label: "Server",
  type: "query",
  datasource,
  query: "SELECT hostname AS __text, id::text AS __value FROM servers ORDER BY hostname",
  refresh: 1,
};

/** The server's block devices seen in the time range. */
export const deviceVariable = {
  name: "device",
  label: "Device",
  type: "query",
  datasource,
  query: "SELECT DISTINCT device FROM disk_io_1m WHERE $__timeFilter(bucket) AND server_id = ${server:sqlstring} ORDER BY 1",
  refresh: 2,
};

/** A time series panel: the SQL returns "time", "metric", "value" (or one column per series). */
export function timeseries(title, unit, rawSql, description) {
  return { type: "timeseries", title, description, unit, format: "time_series", rawSql };
}

/** A table panel (lists, or one figure per row over the whole time range). */
export function table(title, unit, rawSql, description) {
  return { type: "table", title, description, unit, format: "table", rawSql };
}

/** A stat panel: one figure over the whole time range. */
export function stat(title, unit, rawSql, description) {
  return { type: "stat", title, description, unit, format: "table", rawSql };
}

/** Lays panels out two to a row and gives them the datasource and ids Grafana needs. */
export function dashboard({ uid, title, description, variables, panels }) {
  return {
    uid,
    title,
    description,
    schemaVersion: 41,
    version: 1,
    editable: false,
    time: { from: "now-24h", to: "now" },
    refresh: "1m",
    tags: ["spindle"],
    templating: { list: [organisationVariable, ...variables] },
    panels: panels.map((p, i) => ({
      id: i + 1,
      type: p.type,
      title: p.title,
      ...(p.description ? { description: p.description } : {}),
      datasource,
      gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
      fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
      targets: [{ refId: "A", format: p.format, rawQuery: true, editorMode: "code", rawSql: p.rawSql }],
    })),
  };
}
