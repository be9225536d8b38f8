// Every panel of the provisioned Grafana dashboards runs against the migrated schema and draws
// the numbers the console would: Grafana's macros are expanded as Grafana expands them.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pg from "pg";
import { repoRoot } from "../support/gateway";
import { freshDatabase } from "../support/template-db";

const dashboardsDir = join(repoRoot, "infra/grafana/dashboards");
const serverId = "6f1c1d0e-2f7a-4c55-9a51-4a4a5b0c0d01";
const from = "2026-01-01T00:00:00Z";
const to = "2026-01-01T01:00:00Z";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: pg.Client;

// Grafana's ${name:sqlstring} format: the value quoted as an SQL string literal, quotes doubled.
const sqlstring = (value: string) => `'${value.replace(/'/g, "''")}'`;

function expandMacros(sql: string, server = serverId): string {
  return sql
    .replace(/\$__timeFilter\((\w+)\)/g, `$1 BETWEEN '${from}' AND '${to}'`)
    .replace(/\$__timeGroupAlias\((\w+),\s*'1m'\)/g, `to_timestamp(floor(extract(epoch FROM $1) / 60) * 60) AS "time"`)
    .replace(/\$\{server:sqlstring\}/g, () => sqlstring(server));
}

/**
 * Runs a panel's SQL the way the provisioned datasource does: as the read-only role
 * spindle_grafana with the organisation of the Grafana login set (see infra/grafana/README.md).
 */
async function asGrafana(sql: string, orgId = "org"): Promise<Record<string, unknown>[]> {
  await db.query("BEGIN");
  try {
    await db.query("SET LOCAL ROLE spindle_grafana");
    await db.query("SET LOCAL search_path = spindle_tenant, public");
    await db.query("SELECT set_config('spindle.org_id', $1, true)", [orgId]);
    return (await db.query(sql)).rows;
  } finally {
    await db.query("ROLLBACK");
  }
}

before(async () => {
  database = await freshDatabase();
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  await db.query("INSERT INTO organizations (id, name, slug) VALUES ('org', 'Org', 'org')");
  await db.query(
    "INSERT INTO servers (id, org_id, machine_id, hostname, os) VALUES ($1, 'org', 'm1', 'db01', 'linux')", [serverId]);
  // One minute of a device doing 100 read IOPS at 2 ms, 50 write IOPS at 4 ms, through the raw table
  // so that both paths (continuous aggregate or worker rollup) see it the same way.
  await db.query(
    `INSERT INTO disk_io SELECT '2026-01-01T00:00:10Z'::timestamptz + (i * interval '10 s'), 'org', $1, 'vda', 10,
       1000, 500, 4096000, 2048000, 0, 0, 2000, 2000, 5000, 7000, 1
     FROM generate_series(0, 5) AS i`, [serverId]);
  await db.query(
    `INSERT INTO memory SELECT '2026-01-01T00:00:10Z'::timestamptz + (i * interval '10 s'), 'org', $1,
       8e9, 4e9, 1e9, 2e9, 1e8, 1e7, 0, 0 FROM generate_series(0, 5) AS i`, [serverId]);
  await refreshAggregates();
});

after(async () => {
  await db.end();
  await database.drop();
});

// The template database is plain PostgreSQL: the worker's rollup fills the aggregates there.
async function refreshAggregates(): Promise<void> {
  const { rollupPending } = await import(join(repoRoot, "apps/worker/src/jobs/rollup.ts"));
  const pool = new pg.Pool({ connectionString: database.url });
  try {
    await rollupPending(pool);
  } finally {
    await pool.end();
  }
}

const panels = readdirSync(dashboardsDir).filter((f) => f.endsWith(".json")).flatMap((file) => {
  const dashboard = JSON.parse(readFileSync(join(dashboardsDir, file), "utf8"));
  return dashboard.panels.map((p: { title: string; targets: { rawSql: string }[] }) => ({ file, ...p }));
});

for (const panel of panels) {
  test(`${panel.file}: "${panel.title}" draws from the migrated schema`, async () => {
    for (const target of panel.targets) {
      const rows = await asGrafana(expandMacros(target.rawSql));
      assert.ok(rows.length > 0, "the panel's query returns the sample data");
    }
  });
}

test("the IOPS panel shows the rates the samples imply", async () => {
  const iops = panels.find((p) => p.title === "IOPS")!;
  const rows = await asGrafana(expandMacros(iops.targets[0].rawSql));
  const byMetric = Object.fromEntries(rows.map((r) => [r.metric, Number(r.value)]));
  assert.deepEqual(byMetric, { "vda read": 100, "vda write": 50 });
});

test("the latency panel is I/O-weighted", async () => {
  const latency = panels.find((p) => p.title.startsWith("Average latency"))!;
  const { rows } = await db.query(expandMacros(latency.targets[0].rawSql));
  const byMetric = Object.fromEntries(rows.map((r) => [r.metric, Number(r.value)]));
  assert.deepEqual(byMetric, { "vda read": 2, "vda write": 4 });
});

test("the read-only role sees nothing of another organisation and cannot write", async () => {
  for (const panel of panels) {
    for (const target of panel.targets) {
      assert.deepEqual(await asGrafana(expandMacros(target.rawSql), "another-org"), [], `${panel.title} leaks across organisations`);
    }
  }
  await assert.rejects(asGrafana("DELETE FROM servers"), /permission denied/);
  await assert.rejects(asGrafana("SELECT * FROM agents"), /permission denied/);
});

test("no dashboard variable can change the shape of a panel's SQL", async () => {
  const dashboards = readdirSync(dashboardsDir).filter((f) => f.endsWith(".json"))
    .map((file) => ({ file, text: readFileSync(join(dashboardsDir, file), "utf8") }));
  for (const { file, text } of dashboards) {
    const names = (JSON.parse(text).templating?.list ?? []).map((v: { name: string }) => v.name);
    for (const panel of panels.filter((p) => p.file === file)) {
      for (const target of panel.targets) {
        // Every variable is interpolated only as ${name:sqlstring}: a quoted, escaped literal.
        const uses = target.rawSql.match(/\$\{?(\w+)(:\w+)?\}?/g)?.filter((u: string) => !u.startsWith("$__")) ?? [];
        for (const use of uses) {
          assert.ok(names.some((n: string) => use === `\${${n}:sqlstring}`), `${file} "${panel.title}": ${use} is not \${name:sqlstring}`);
        }
        // A hostile value stays one string literal: same plan shape, no rows, no error.
        for (const hostile of ["x' OR '1'='1", "'; DELETE FROM servers; --", "\\' OR true --"]) {
          const expanded = expandMacros(target.rawSql, hostile);
          const plain = expandMacros(target.rawSql, "00000000-0000-0000-0000-000000000000");
          assert.equal(expanded.replace(sqlstring(hostile), "?"), plain.replace(sqlstring("00000000-0000-0000-0000-000000000000"), "?"));
          await assert.rejects(asGrafana(expanded), /invalid input syntax for type uuid/, `${panel.title} ran a hostile value as SQL`);
        }
      }
    }
  }
});
