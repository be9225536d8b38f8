// The alert tables (migration 20261123170000_alerts): the Prisma models match the SQL, the
// constraints the worker and console rely on hold, and rows stay inside their organisation.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { createPrisma, type PrismaClient } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";
import { withOrgTransaction } from "../src/tenant.js";

describe("alert tables", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let client: pg.Client;
  const servers: Record<string, string> = {};

  before(async () => {
    db = await createTestDatabase({ label: "alerts" });
    prisma = createPrisma(db.url);
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    for (const org of ["org-a", "org-b"]) {
      await client.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)", [org]);
      const { rows } = await client.query(
        "INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ($1, 'm', 'h-' || $1, 'linux') RETURNING id",
        [org],
      );
      servers[org] = rows[0].id;
    }
    await client.query("INSERT INTO users (id, name, email) VALUES ('u1', 'Ada', 'ada@example.com')");
  });
  after(async () => {
    await prisma?.$disconnect();
    await client?.end();
    await db?.drop();
  });

  it("creates and reads every alert model through Prisma", async () => {
    const rule = await prisma.alertRule.create({
      data: {
        orgId: "org-a",
        defaultKey: "read_latency_p99",
        name: "p99 read latency high",
        signal: "disk.read_latency",
        aggregation: "p99",
        comparison: ">",
        threshold: 250,
        windowSeconds: 300,
        forSeconds: 600,
        resolveSeconds: 600,
        noDataSeconds: 900,
        scope: "device",
        serverId: servers["org-a"],
        device: "sda",
        severity: "warning",
        note: "look",
        createdBy: "u1",
        updatedBy: "u1",
      },
    });
    const silence = await prisma.alertSilence.create({
      data: {
        orgId: "org-a",
        ruleId: rule.id,
        scope: "tag",
        tag: "db",
        startsAt: new Date("2026-11-20T10:00:00Z"),
        endsAt: new Date("2026-11-20T11:00:00Z"),
        comment: "kernel upgrade",
        createdBy: "u1",
        cancelledAt: new Date("2026-11-20T10:30:00Z"),
        cancelledBy: "u1",
      },
    });
    const at = new Date("2026-11-20T10:05:00Z");
    await prisma.alertState.create({
      data: {
        orgId: "org-a",
        ruleId: rule.id,
        serverId: servers["org-a"]!,
        component: "sda",
        state: "firing",
        stateSince: at,
        conditionSince: at,
        clearSince: null,
        value: 262.144,
        updatedAt: at,
      },
    });
    await prisma.alertHistory.create({
      data: {
        orgId: "org-a",
        ruleId: rule.id,
        ruleName: rule.name,
        severity: "warning",
        serverId: servers["org-a"]!,
        component: "sda",
        at,
        fromState: "pending",
        toState: "firing",
        value: 262.144,
        threshold: 250,
        comparison: ">",
        silencedBy: silence.id,
      },
    });
    await prisma.alertEvaluationProgress.create({ data: { orgId: "org-a", evaluatedAt: at, defaultsVersion: 1 } });

    const read = await prisma.alertRule.findUniqueOrThrow({
      where: { id: rule.id },
      include: { states: true, history: { include: { silence: true } }, silences: true },
    });
    assert.equal(read.states[0]?.state, "firing");
    assert.equal(read.history[0]?.silence?.comment, "kernel upgrade");
    assert.equal(read.silences[0]?.tag, "db");
    assert.equal((await prisma.alertEvaluationProgress.findUniqueOrThrow({ where: { orgId: "org-a" } })).defaultsVersion, 1);

    // Deleting the rule keeps its history (rule name copied), drops its state and silences.
    await prisma.alertRule.delete({ where: { id: rule.id } });
    const history = await prisma.alertHistory.findFirstOrThrow({ where: { orgId: "org-a" } });
    assert.equal(history.ruleId, null);
    assert.equal(history.ruleName, "p99 read latency high");
    assert.equal(history.silencedBy, null, "its silence went with the rule");
    assert.equal(await prisma.alertState.count(), 0);
  });

  const insertRule = (org: string, extra = "", values: unknown[] = []) =>
    client.query(
      `INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity${extra ? `, ${extra.split("=")[0]}` : ""})
       VALUES ($1, 'r', 'disk.utilisation', 'avg', '>', 90, 300, 'organization', 'warning'${extra ? ", $2" : ""}) RETURNING id`,
      [org, ...values],
    );

  it("refuses inconsistent scopes, bad comparisons and a second copy of a default", async () => {
    await assert.rejects(
      client.query(`INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity)
      VALUES ('org-a', 'r', 'disk.utilisation', 'avg', '>', 90, 300, 'tag', 'warning')`),
      /check constraint/,
    );
    await assert.rejects(
      client.query(`INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity)
      VALUES ('org-a', 'r', 'disk.utilisation', 'avg', '!=', 90, 300, 'organization', 'warning')`),
      /alert_rules_comparison_check/,
    );
    await insertRule("org-a", "default_key", ["agent_offline"]);
    await assert.rejects(insertRule("org-a", "default_key", ["agent_offline"]), /alert_rules_org_id_default_key_key/);
    await insertRule("org-b", "default_key", ["agent_offline"]);
  });

  it("refuses a rule, state or silence that points into another organisation", async () => {
    await assert.rejects(
      client.query(
        `INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, server_id, severity)
      VALUES ('org-a', 'r', 'disk.utilisation', 'avg', '>', 90, 300, 'server', $1, 'warning')`,
        [servers["org-b"]],
      ),
      /foreign key/,
    );
    const ruleB = (await insertRule("org-b")).rows[0].id;
    await assert.rejects(
      client.query(
        `INSERT INTO alert_states (org_id, rule_id, server_id, state, state_since, updated_at)
      VALUES ('org-a', $1, $2, 'ok', now(), now())`,
        [ruleB, servers["org-a"]],
      ),
      /foreign key/,
    );
    await assert.rejects(
      client.query(
        `INSERT INTO alert_silences (org_id, rule_id, scope, starts_at, ends_at, comment)
      VALUES ('org-a', $1, 'organization', now(), now() + interval '1 hour', 'x')`,
        [ruleB],
      ),
      /foreign key/,
    );
  });

  it("allows one history row per rule × subject and tick", async () => {
    const rule = (await insertRule("org-a")).rows[0].id;
    const row = `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, at, from_state, to_state, value, threshold, comparison)
      VALUES ('org-a', $1, 'r', 'warning', $2, '2026-11-20T10:05:00Z', 'ok', 'firing', 95, 90, '>')`;
    await client.query(row, [rule, servers["org-a"]]);
    await assert.rejects(client.query(row, [rule, servers["org-a"]]), /alert_history_rule_id_server_id_component_at_key/);
  });

  // spindle_console: spindle_worker inherits spindle_system's cross-tenant policy today (it is
  // granted spindle_system), so for the worker the explicit org_id in every query is the wall.
  it("shows a service role only its organisation's alert rows", async () => {
    const seen = await withOrgTransaction(client, "org-b", "spindle_console", async (tx) =>
      (await tx.query("SELECT DISTINCT org_id FROM alert_rules")).rows.map((r) => r.org_id),
    );
    assert.deepEqual(seen, ["org-b"]);
    await assert.rejects(
      withOrgTransaction(client, "org-b", "spindle_console", (tx) =>
        tx.query(`INSERT INTO alert_evaluation_progress (org_id) VALUES ('org-a')`),
      ),
      /row-level security/,
    );
  });
});
