// Every panel and variable of the provisioned Grafana dashboards runs against the migrated schema,
// on both time-series paths (plain PostgreSQL with the worker's rollups; TimescaleDB in PGlite
// with continuous aggregates), as the per-organisation Grafana login a provisioned datasource
// connects with (infra/grafana/README.md; support/grafana-databases.ts makes them as documented).
// Grafana's macros are expanded as Grafana expands them. Another organisation's rows, present in
// the same tables, never show.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { repoRoot } from "../support/gateway";
import { type GrafanaDatabases, openPlainPostgres, openTimescale } from "../support/grafana-databases";

const dashboardsDir = join(repoRoot, "infra/grafana/dashboards");
const ours = { orgId: "org", serverId: "6f1c1d0e-2f7a-4c55-9a51-4a4a5b0c0d01", hostname: "db01" };
const theirs = { orgId: "other-org", serverId: "6f1c1d0e-2f7a-4c55-9a51-4a4a5b0c0d02", hostname: "their-db" };
const from = "2026-01-01T00:00:00Z";
const to = "2026-01-01T01:00:00Z";

interface Target {
  rawSql: string;
  format: string;
}
interface Panel {
  file: string;
  title: string;
  type: string;
  datasource: { uid: string };
  targets: Target[];
}
interface Variable {
  name: string;
  type: string;
  query: string;
  datasource?: { uid: string };
}

const dashboardFiles = readdirSync(dashboardsDir)
  .filter((f) => f.endsWith(".json"))
  .sort();
const dashboards = dashboardFiles.map((file) => ({ file, json: JSON.parse(readFileSync(join(dashboardsDir, file), "utf8")) }));
const panels: Panel[] = dashboards.flatMap(({ file, json }) => json.panels.map((p: Omit<Panel, "file">) => ({ file, ...p })));
const variables: (Variable & { file: string })[] = dashboards.flatMap(({ file, json }) =>
  json.templating.list.map((v: Variable) => ({ file, ...v })),
);

// Grafana's ${name:sqlstring} format: the value quoted as an SQL string literal, quotes doubled.
const sqlstring = (value: string) => `'${value.replace(/'/g, "''")}'`;

type Values = { server?: string; device?: string };
function expandMacros(sql: string, values: Values = {}): string {
  const { server = ours.serverId, device = "vda" } = values;
  return sql
    .replace(/\$__timeFilter\((\w+(?:\.\w+)?)\)/g, `$1 BETWEEN '${from}' AND '${to}'`)
    .replace(
      /\$__timeGroupAlias\((\w+(?:\.\w+)?),\s*'1([mh])'\)/g,
      (_, column, unit) =>
        `to_timestamp(floor(extract(epoch FROM ${column}) / ${unit === "m" ? 60 : 3600}) * ${unit === "m" ? 60 : 3600}) AS "time"`,
    )
    .replace(/\$\{server:sqlstring\}/g, () => sqlstring(server))
    .replace(/\$\{device:sqlstring\}/g, () => sqlstring(device));
}

/** Runs SQL as the organisation's Grafana login, the way its provisioned datasource does. */
async function asGrafana(dbs: GrafanaDatabases, sql: string, orgId = ours.orgId): Promise<Record<string, unknown>[]> {
  const login = dbs.logins.get(orgId);
  assert.ok(login, `no Grafana login for ${orgId}`);
  return login.db.query(sql);
}

const openPlain = () => openPlainPostgres([ours, theirs]);
const openTimescaleDb = () => openTimescale([ours, theirs]);

for (const [mode, open] of [
  ["plain PostgreSQL", openPlain],
  ["TimescaleDB", openTimescaleDb],
] as const) {
  describe(`dashboards on ${mode}, as the organisation's Grafana login`, () => {
    let db: GrafanaDatabases;
    before(async () => {
      db = await open();
    });
    after(async () => db?.close());

    for (const panel of panels) {
      test(`${panel.file}: "${panel.title}" draws its organisation's rows and never another's`, async () => {
        for (const target of panel.targets) {
          assert.ok((await asGrafana(db, expandMacros(target.rawSql))).length > 0, "the panel draws the sample data");
          // Their server exists, with the same data, and their own datasource sees it…
          const theirValues = { server: theirs.serverId };
          assert.ok((await asGrafana(db, expandMacros(target.rawSql, theirValues), theirs.orgId)).length > 0);
          // …but our datasource gets nothing even when asked for their server by id.
          assert.deepEqual(await asGrafana(db, expandMacros(target.rawSql, theirValues)), [], "leaks across organisations");
        }
      });
    }

    test("variables list only the datasource's organisation", async () => {
      const servers = variables.filter((v) => v.name === "server");
      for (const v of servers) {
        assert.deepEqual(await asGrafana(db, expandMacros(v.query)), [{ __text: ours.hostname, __value: ours.serverId }], v.file);
      }
      const devices = variables.find((v) => v.name === "device")!;
      assert.deepEqual(await asGrafana(db, expandMacros(devices.query)), [{ device: "vda" }]);
      assert.deepEqual(await asGrafana(db, expandMacros(devices.query, { server: theirs.serverId })), []);
    });

    test("the IOPS panel shows the rates the samples imply", async () => {
      const rows = await asGrafana(db, expandMacros(panel("server-io.json", "IOPS")));
      const byMetric = Object.fromEntries(rows.map((r) => [r.metric, Number(r.value)]));
      assert.deepEqual(byMetric, { "vda read": 100, "vda write": 50 });
    });

    test("SQL Server rates and means leave out the interval that measured nothing", async () => {
      const rate = await asGrafana(db, expandMacros(panel("database.json", "SQL Server batch requests per second")));
      // Minute 00:00 holds five samples; the first has no batch count: 4 × 4,000 over 40 s, not over 50 s.
      assert.deepEqual(
        rate.map((r) => Number(r.value)),
        [400, 400],
      );
      const ratio = await asGrafana(db, expandMacros(panel("database.json", "SQL Server buffer cache hit ratio")));
      assert.deepEqual(
        ratio.map((r) => Number(r.value)),
        [0.99, 0.99],
      );
    });

    test("latency percentiles come from merged buckets: the bucket's upper edge", async () => {
      const [read] = await asGrafana(db, expandMacros(panel("latency.json", "Latency over the time range (merged buckets)")));
      // 600 reads: 540 in (0.512, 1.024] ms, 60 in (4.096, 8.192] ms; nearest rank.
      assert.equal(Number(read!["timed I/Os"]), 600);
      assert.equal(Number(read!["p50 ≤ ms"]), 1.024);
      assert.equal(Number(read!["p95 ≤ ms"]), 8.192);
      assert.equal(Number(read!["mean ms"]), 1);
      // 30 more reads completed untimed beside those 600: 30 of 630 completions.
      assert.equal(Number(read!["untimed I/Os"]), 30);
      assert.equal(Number(read!["untimed % of completions"]).toFixed(4), ((100 * 30) / 630).toFixed(4));
    });

    test("untimed I/Os are not measured where the agent did not count them, never 0", async () => {
      const rows = await asGrafana(db, expandMacros(panel("latency.json", "Latency over the time range (merged buckets)")));
      // The fixture's writes have histograms and no untimed count.
      const write = rows.find((row) => row.operation === "write");
      assert.equal(Number(write!["timed I/Os"]), 300);
      assert.equal(write!["untimed I/Os"], null);
      assert.equal(write!["untimed % of completions"], null);
    });

    test("gains are sums of measured values, never averages of ratios", async () => {
      const [cache] = await asGrafana(db, expandMacros(panel("acceleration.json", "Read cache over the time range")));
      assert.equal(Number(cache!["share from memory"]), 0.75);
      assert.equal(Number(cache!["calibrated page-cache read µs"]), 2);
      // Each minute: control 30 % of its page accesses missed, managed 10 %.
      const ratios = await asGrafana(
        db,
        expandMacros(panel("acceleration.json", "Read cache: miss ratio, managed pages vs the control group")),
      );
      assert.ok(
        ratios.length > 0 &&
          ratios.every(
            (row) =>
              Number(row["managed pages"]).toFixed(6) === "0.100000" && Number(row["control group (left alone)"]).toFixed(6) === "0.300000",
          ),
        JSON.stringify(ratios),
      );
      const [extents] = await asGrafana(db, expandMacros(panel("acceleration.json", "Extents per GiB grown: managed vs comparison group")));
      assert.deepEqual([Number(extents!["managed files"]), Number(extents!["unmanaged growing files"])], [1, 16]);
    });

    test("the read-only role cannot write, nor read credentials, users or notification secrets", async () => {
      await assert.rejects(asGrafana(db, "DELETE FROM servers"), /permission denied/);
      for (const secret of ["agents", "enrollment_tokens", "users", "audit_log", "notification_channels"]) {
        await assert.rejects(asGrafana(db, `SELECT * FROM ${secret}`), /permission denied/, secret);
      }
      await assert.rejects(asGrafana(db, "SELECT * FROM public.disk_io"), /permission denied/);
    });
  });
}

function panel(file: string, title: string): string {
  const found = panels.find((p) => p.file === file && p.title === title);
  assert.ok(found, `${file} has a panel "${title}"`);
  return found.targets[0]!.rawSql;
}

test("the committed dashboards are what infra/grafana/src/build.mjs writes", async () => {
  const { dashboards: built, render } = await import(join(repoRoot, "infra/grafana/src/build.mjs"));
  assert.deepEqual(dashboardFiles, Object.keys(built).sort(), "run node infra/grafana/src/build.mjs");
  for (const { file } of dashboards) {
    assert.equal(
      readFileSync(join(dashboardsDir, file), "utf8"),
      render(built[file]),
      `${file} is stale: run node infra/grafana/src/build.mjs`,
    );
  }
});

test("the organisation comes from the datasource, never from a value typed into a variable", () => {
  for (const { file, json } of dashboards) {
    const list: Variable[] = json.templating.list;
    assert.deepEqual(
      list.map((v) => v.type).filter((t) => t !== "query" && t !== "datasource"),
      [],
      `${file}: only query and datasource variables (no textbox, custom, constant or ad hoc filters)`,
    );
    assert.deepEqual(list.find((v) => v.type === "datasource")?.name, "organisation", file);
    for (const p of json.panels) assert.equal(p.datasource.uid, "${organisation}", `${file} "${p.title}"`);
    for (const v of list.filter((v) => v.type === "query")) assert.equal(v.datasource?.uid, "${organisation}", `${file} ${v.name}`);
  }
});

test("no dashboard variable can change the shape of a panel's SQL", async () => {
  const db = await openPlain();
  try {
    const queries = [
      ...panels.flatMap((p) => p.targets.map((t) => ({ where: `${p.file} "${p.title}"`, sql: t.rawSql }))),
      ...variables.filter((v) => v.type === "query").map((v) => ({ where: `${v.file} variable ${v.name}`, sql: v.query })),
    ];
    for (const { where, sql } of queries) {
      // Every variable is interpolated only as ${name:sqlstring}: a quoted, escaped literal.
      const uses = sql.match(/\$\{?(\w+)(:\w+)?\}?/g)?.filter((u) => !u.startsWith("$__")) ?? [];
      for (const use of uses) {
        assert.ok(use === "${server:sqlstring}" || use === "${device:sqlstring}", `${where}: ${use} is not \${name:sqlstring}`);
      }
      // A hostile value stays one string literal: the same SQL around it, and it runs as a value.
      for (const hostile of ["x' OR '1'='1", "'; DELETE FROM servers; --", "\\' OR true --"]) {
        for (const name of ["server", "device"] as const) {
          if (!sql.includes(`\${${name}:sqlstring}`)) continue;
          const expanded = expandMacros(sql, { [name]: hostile });
          const plain = expandMacros(sql, { [name]: "placeholder" });
          assert.equal(expanded.split(sqlstring(hostile)).join("?"), plain.split(sqlstring("placeholder")).join("?"), where);
          if (name === "server") {
            await assert.rejects(asGrafana(db, expanded), /invalid input syntax for type uuid/, `${where} ran a hostile value as SQL`);
          } else {
            assert.deepEqual(await asGrafana(db, expanded), [], `${where} ran a hostile device as SQL`);
          }
        }
      }
    }
  } finally {
    await db.close();
  }
});
