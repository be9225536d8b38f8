// Row-level security as the console's second wall (issue 11, defect 11). The test database's Db
// connects like production: a login holding only spindle_console (test-support/test-database.ts).
// - Outside inOrg / inOrgSql that login sees no tenant row and cannot read raw telemetry at all.
// - Inside them, a query that forgets its org_id filter still sees only its organisation, in every
//   tenant relation, by the bare names the modules use (views in spindle_tenant where RLS cannot
//   apply: raw telemetry, and the aggregates on TimescaleDB).
// - Every data operation answers under the role over every range (no permission errors).
// - No code but lib/db.ts reaches the raw clients, so the wall cannot be walked around.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { consoleTestLogin, createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import { listAlertHistory } from "@/modules/alerts/lib/list-alert-history";
import { listOpenAlerts } from "@/modules/alerts/lib/list-open-alerts";
import { listRules } from "@/modules/alerts/lib/list-rules";
import { previewRule } from "@/modules/alerts/lib/preview-rule";
import { listSilences } from "@/modules/alerts/lib/silences";
import { listAuditLog } from "@/modules/audit/lib/list-audit-log";
import { listChannelSummaries } from "@/modules/channels/lib/channels";
import { getServerOffer } from "@/modules/proof-runs/lib/profiles";
import { listRuns } from "@/modules/proof-runs/lib/runs";
import { queryDeepTelemetry } from "@/modules/deep-telemetry/lib/query-deep-telemetry";
import { createEnrollmentToken } from "@/modules/enrollment/lib/create-enrollment-token";
import { listEnrollmentTokens } from "@/modules/enrollment/lib/list-enrollment-tokens";
import { getServer } from "@/modules/fleet/lib/get-server";
import { queryFleet } from "@/modules/fleet/lib/query-fleet";
import { fleetQuerySchema } from "@/modules/fleet/types/fleet-query";
import { getAgentState } from "@/modules/fleet/lib/server-lifecycle";
import { exportGainsCsv } from "@/modules/gains/lib/export-gains";
import { queryFleetGains, queryServerGains } from "@/modules/gains/lib/query-gains";
import { queryServerVerdict } from "@/modules/gains/lib/query-verdicts";
import { listMembers } from "@/modules/members/lib/list-members";
import { queryServerMetrics } from "@/modules/metrics/lib/query-server-metrics";
import { createPolicy } from "@/modules/policies/lib/create-policy";
import { getServerPolicy } from "@/modules/policies/lib/get-server-policy";
import { listAssignmentTargets } from "@/modules/policies/lib/list-assignment-targets";
import { listPolicies } from "@/modules/policies/lib/list-policies";
import { identityTables, inOrg, inOrgSql } from "./db";

const consoleRoot = fileURLToPath(new URL("..", import.meta.url));

describe("the database walls between organisations", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgA: { orgId: string; userId: string };
  let orgB: { orgId: string; userId: string };
  let serverOfA: { id: string };
  let serverOfB: { id: string };

  before(async () => {
    db = await createTestDatabase();
    orgA = await createOrganisation(db.prisma, "Alpha");
    orgB = await createOrganisation(db.prisma, "Beta");
    serverOfA = await createServer(db.prisma, orgA.orgId, "alpha-db01", new Date());
    serverOfB = await createServer(db.prisma, orgB.orgId, "beta-db01", new Date());
    // Telemetry of both organisations, raw and rolled up, written as the superuser (the gateway's COPY).
    for (const [orgId, serverId] of [
      [orgA.orgId, serverOfA.id],
      [orgB.orgId, serverOfB.id],
    ] as const) {
      await db.pool.query(
        `INSERT INTO disk_io VALUES (now() - interval '2 minutes', $1, $2, 'sda', 10, 100, 0, 4096, 0, 0, 0, 5, 0, 10, 10, 0)`,
        [orgId, serverId],
      );
      await db.pool.query(
        `INSERT INTO memory (time, org_id, server_id, total_bytes, available_bytes, free_bytes, cached_bytes, buffers_bytes, dirty_bytes, swap_total_bytes, swap_free_bytes)
         VALUES (now() - interval '2 minutes', $1, $2, 100, 50, 40, 10, 1, 0, 0, 0)`,
        [orgId, serverId],
      );
      await db.prisma.agent.create({ data: { orgId, serverId, credentialHash: Buffer.from(serverId.padEnd(32, "x")) } });
    }
    await rollUpAggregates(db.pool);
    await createEnrollmentToken(db, orgA, { label: "alpha" }, { gatewayUrl: "http://gw" });
    await createEnrollmentToken(db, orgB, { label: "beta" }, { gatewayUrl: "http://gw" });
    await createPolicy(db, { ...orgA, role: "owner" }, { name: "Alpha policy" });
    await createPolicy(db, { ...orgB, role: "owner" }, { name: "Beta policy" });
  });
  after(() => db?.drop());

  /** The console's login outside inOrg / inOrgSql: what a forgotten scope would run as. */
  async function asLoginUnscoped(sql: string) {
    const url = new URL(process.env.SPINDLE_TEST_DATABASE_URL!);
    url.username = consoleTestLogin;
    url.pathname = `/${(await db.pool.query<{ db: string }>("SELECT current_database() AS db")).rows[0]!.db}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  }

  it("shows the console's login no tenant row, and no raw telemetry, outside a scoped transaction", async () => {
    assert.deepEqual(await asLoginUnscoped("SELECT count(*)::int AS n FROM servers"), [{ n: 0 }]);
    assert.deepEqual(await asLoginUnscoped("SELECT count(*)::int AS n FROM enrollment_tokens"), [{ n: 0 }]);
    await assert.rejects(asLoginUnscoped("SELECT count(*) FROM public.disk_io"), /permission denied/);
  });

  it("shows a query that forgets its org filter only its organisation, in every tenant relation by its bare name", async () => {
    const { rows: relations } = await db.pool.query<{ relname: string }>(`
      SELECT DISTINCT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm', 'v') ORDER BY 1`);
    assert.ok(relations.length >= 20, `expected every tenant relation, found ${relations.length}`);
    const seen = new Map<string, string[]>();
    await inOrgSql(db, orgB.orgId, async (sql) => {
      for (const { relname } of relations) {
        const { rows } = await sql.query<{ org_id: string }>(`SELECT DISTINCT org_id FROM ${pg.escapeIdentifier(relname)}`);
        seen.set(
          relname,
          rows.map((row) => row.org_id),
        );
      }
    });
    for (const [relname, orgs] of seen)
      assert.ok(
        orgs.every((org) => org === orgB.orgId),
        `${relname} showed ${orgs.join(", ")} to ${orgB.orgId}`,
      );
    // Seeded for both organisations, so each shows B's rows (the filter works, not just an empty table).
    for (const relname of [
      "servers",
      "agents",
      "disk_io",
      "disk_io_1m",
      "disk_io_1h",
      "memory",
      "memory_1m",
      "enrollment_tokens",
      "audit_log",
      "policies",
      "policy_versions",
    ]) {
      assert.deepEqual(seen.get(relname), [orgB.orgId], `${relname} should show exactly ${orgB.orgId}'s rows`);
    }
    const viaPrisma = await inOrg(db, orgB.orgId, async (tx) => ({
      servers: await tx.server.findMany({ select: { orgId: true } }),
      tokens: await tx.enrollmentToken.findMany({ select: { orgId: true } }),
      audit: await tx.auditLog.findMany({ select: { orgId: true } }),
      policies: await tx.policy.findMany({ select: { orgId: true } }),
      agents: await tx.agent.findMany({ select: { orgId: true } }),
    }));
    for (const [table, rows] of Object.entries(viaPrisma)) {
      assert.ok(rows.length > 0 && rows.every((row) => row.orgId === orgB.orgId), `${table} via Prisma showed ${JSON.stringify(rows)}`);
    }
  });

  it("refuses a write into another organisation inside a scoped transaction", async () => {
    await assert.rejects(
      inOrg(db, orgB.orgId, (tx) => tx.auditLog.create({ data: { orgId: orgA.orgId, action: "forged", target: "x" } })),
      /row-level security|violates/,
    );
  });

  it("answers every data operation under the role, over every range, with the organisation's data", async () => {
    const { orgId } = orgA;
    assert.equal((await queryFleet(db, orgId, fleetQuerySchema.parse({ group: "tag" }))).servers.length, 1);
    assert.equal((await getServer(db, orgId, serverOfA.id)).hostname, "alpha-db01");
    for (const range of ["1h", "24h", "7d"] as const) {
      const metrics = await queryServerMetrics(db, orgId, serverOfA.id, range);
      assert.equal(metrics.devices[0]?.device, "sda", `metrics ${range}`);
      const deep = await queryDeepTelemetry(db, orgId, serverOfA.id, range);
      assert.deepEqual(deep.latency, [], `deep telemetry ${range}`);
    }
    for (const range of ["1h", "24h", "7d", "30d"] as const) {
      const fleet = await queryFleetGains(db, orgId, { range });
      assert.deepEqual(
        fleet.servers.map((s) => s.hostname),
        ["alpha-db01"],
        `fleet gains ${range}`,
      );
      const server = await queryServerGains(db, orgId, serverOfA.id, { range });
      assert.deepEqual(
        server.devices.map((d) => d.device),
        ["sda"],
        `server gains ${range}`,
      );
    }
    assert.match((await exportGainsCsv(db, orgId, { what: "ledger", range: "24h" })).body, /alpha-db01/);
    assert.equal((await queryServerVerdict(db, orgId, serverOfA.id)).change.status, "unknown");
    assert.equal((await listPolicies(db, orgId)).length, 1);
    assert.equal((await getServerPolicy(db, orgId, serverOfA.id)).serverId, serverOfA.id);
    assert.equal((await listAssignmentTargets(db, orgId)).servers.length, 1);
    assert.equal((await listEnrollmentTokens(db, orgId)).length, 1);
    assert.ok((await listAuditLog(db, orgId)).entries.length >= 2);
    assert.deepEqual(await listRuns(db, orgId, serverOfA.id), []);
    assert.deepEqual(await getServerOffer(db, orgId, serverOfA.id), { profiles: [], paths: [] });
    assert.equal((await getAgentState(db, orgA, serverOfA.id)).revokedAt, null);
    assert.equal((await listMembers(identityTables(db), orgId)).members.length, 1);
    assert.deepEqual((await listRules(db, orgId)).rules, []);
    assert.deepEqual(await listOpenAlerts(db, orgId), []);
    assert.deepEqual((await listAlertHistory(db, orgId, {})).entries, []);
    assert.deepEqual(await listSilences(db, orgId), []);
    assert.deepEqual(await listChannelSummaries(db, orgId), []);
    const preview = await previewRule(db, orgId, {
      name: "reads",
      signal: "disk.read_iops",
      aggregation: "avg",
      comparison: ">",
      threshold: 1,
      windowSeconds: 300,
      forSeconds: 0,
      resolveSeconds: 0,
      noDataSeconds: 600,
      scope: { scope: "organization" },
      severity: "info",
    });
    assert.deepEqual(
      preview.previewable && Object.values(preview.hostnames),
      ["alpha-db01"],
      "the preview replays only this organisation's servers",
    );
    // And the other organisation's server is not there for A.
    await assert.rejects(queryServerMetrics(db, orgId, serverOfB.id, "24h"), { status: 404 });
    await assert.rejects(queryServerGains(db, orgId, serverOfB.id, { range: "24h" }), { status: 404 });
  });
});

describe("the console's code reaches the database only through the scoped helpers", () => {
  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sources(path);
      return /\.(ts|tsx)$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
    });
  }
  const files = ["app", "modules", "lib"]
    .flatMap((dir) => sources(join(consoleRoot, dir)))
    .map((path) => ({
      path: relative(consoleRoot, path),
      text: readFileSync(path, "utf8"),
    }));

  it("opens the raw clients in lib/db.ts only", () => {
    assert.ok(files.length > 100, `found only ${files.length} source files`);
    const raw = files.filter(
      ({ path, text }) =>
        path !== "lib/db.ts" &&
        (/\b(createPrisma|createPool|withOrgPrisma|withOrgTransaction|new PrismaClient|new pg\.(Pool|Client))\b/.test(text) ||
          /from "@spindle\/db"/.test(text.replace(/import type [^;]+;/g, "")) ||
          /from "pg"/.test(text.replace(/import type [^;]+;/g, ""))),
    );
    assert.deepEqual(
      raw.map((f) => f.path),
      [],
      "open organisation data with inOrg / inOrgSql from @/lib/db",
    );
  });

  it("exports no unscoped client from lib/db.ts, and gives better-auth's client to auth.ts alone", () => {
    const db = files.find((f) => f.path === "lib/db.ts")!.text;
    assert.doesNotMatch(db, /export (async )?function (prisma|pool)\b/);
    const authUsers = files.filter(({ path, text }) => path !== "lib/db.ts" && /\bauthPrisma\b/.test(text)).map((f) => f.path);
    assert.deepEqual(authUsers, ["modules/auth/lib/auth.ts"]);
    const transactions = files.filter(({ text }) => /\.\$transaction\(/.test(text)).map((f) => f.path);
    assert.deepEqual(transactions, [], "a transaction of organisation data is inOrg's, not $transaction's");
  });
});
