// The marks on the time charts, from every source, on a real database as the console's role:
// a policy applied by the agent (recorded by the database's own trigger), alerts firing and
// resolving, a proof run's span, an agent restart, a kind no chart knows yet; the window; the
// cap; another organisation's server.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { annotationsQuerySchema, MAX_ANNOTATIONS } from "../types/annotation";
import { queryAnnotations } from "./query-annotations";

const t = (iso: string) => new Date(`2026-11-28T${iso}Z`);
const window = { from: t("10:00:00"), to: t("12:00:00") };

describe("chart annotations", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let serverId: string;
  let quietId: string;
  let otherOrg: string;
  let policyId: string;

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Alpha"));
    otherOrg = (await createOrganisation(db.prisma, "Beta")).orgId;
    serverId = (await createServer(db.prisma, orgId, "db01", new Date())).id;
    quietId = (await createServer(db.prisma, orgId, "quiet", new Date())).id;
    policyId = (
      await db.pool.query<{ id: string }>("INSERT INTO policies (org_id, name) VALUES ($1, 'Sample every 5 s') RETURNING id::text", [orgId])
    ).rows[0]!.id;
    await db.pool.query(
      `INSERT INTO server_effective_policies (org_id, server_id, document, hash, layers) VALUES ($1, $2, '{"schemaVersion": 1}', $3, $4)`,
      [
        orgId,
        serverId,
        "a".repeat(64),
        JSON.stringify([{ scope: "organization", tag: null, policyId, policyName: "Sample every 5 s", versionId: "v", version: 2 }]),
      ],
    );
    // The agent's APPLIED, as the gateway records it: the trigger writes the event.
    await db.pool.query(
      `INSERT INTO server_policy_status (org_id, server_id, desired_version_hash, reported_hash, applied_hash, status, reported_at, applied_at)
       VALUES ($1, $2, $3, $3, $3, 'applied', $4, $4)`,
      [orgId, serverId, "a".repeat(64), t("10:30:00")],
    );
    await db.pool.query(
      `INSERT INTO agents (org_id, server_id, credential_hash, health) VALUES ($1, $2, sha256('x'), '{"startedAt": "2026-11-28T09:00:00Z"}')`,
      [orgId, serverId],
    );
    await db.pool.query(`UPDATE agents SET health = '{"startedAt": "2026-11-28T11:45:00Z"}' WHERE server_id = $1`, [serverId]);
    const {
      rows: [rule],
    } = await db.pool.query<{ id: string }>(
      `INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity)
       VALUES ($1, 'Read latency', 'disk.read_latency', 'avg', '>', 20, 300, 'organization', 'critical') RETURNING id::text`,
      [orgId],
    );
    for (const [at, from, to, value] of [
      ["10:40:00", "pending", "firing", 31.5],
      ["11:00:00", "firing", "ok", 4],
      ["11:10:00", "ok", "pending", 25],
    ] as const) {
      await db.pool.query(
        `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
         VALUES ($1, $2, 'Read latency', 'critical', $3, 'sda', $4, $5, $6, $7, 20, '>')`,
        [orgId, rule!.id, serverId, t(at), from, to, value],
      );
    }
    await db.pool.query(
      `INSERT INTO proof_runs (org_id, server_id, profile, parameters, status, started_at, finished_at, report)
       VALUES ($1, $2, 'sqlio', '{}', 'succeeded', $3, $4, '{}'), ($1, $2, 'oltp', '{}', 'succeeded', $5, $6, '{}')`,
      [orgId, serverId, t("11:20:00"), t("11:30:00"), t("08:00:00"), t("09:00:00")],
    );
    await db.pool.query("INSERT INTO server_events (org_id, server_id, at, kind, details) VALUES ($1, $2, $3, 'cache.warmed', '{}')", [
      orgId,
      serverId,
      t("11:50:00"),
    ]);
  });
  after(() => db?.drop());

  it("marks every kind of event in the window, in time order, with details", async () => {
    const { annotations, truncated } = await queryAnnotations(db, orgId, [serverId], window);
    assert.equal(truncated, false);
    assert.deepEqual(
      annotations.map((a) => [a.kind, a.at.slice(11, 19), a.tone]),
      [
        ["policy.applied", "10:30:00", "policy"],
        ["alert.firing", "10:40:00", "alert"],
        ["alert.resolved", "11:00:00", "resolved"],
        ["proof_run.ran", "11:20:00", "proof"],
        ["agent.restarted", "11:45:00", "agent"],
        ["cache.warmed", "11:50:00", "agent"],
      ],
    );
    const [policy, firing, resolved, proof, restart, unknown] = annotations;
    assert.equal(policy!.title, "Policy applied");
    assert.match(policy!.detail, /“Sample every 5 s” v2 \(organisation default\) in force; policy aaaaaaaaaaaa applied by the agent/);
    assert.equal(policy!.href, `/policies/${policyId}`);
    assert.equal(firing!.title, "Alert firing: Read latency (critical)");
    assert.equal(firing!.detail, "Read latency on sda: 31.5 against > 20.");
    assert.equal(resolved!.title, "Alert resolved: Read latency (critical)");
    assert.equal(proof!.endAt, t("11:30:00").toISOString());
    assert.match(restart!.detail, /previous start 2026-11-28T09:00:00Z/);
    assert.equal(unknown!.title, "Cache warmed", "a kind the charts do not know is still marked, under its name");
    assert.ok(annotations.every((a) => a.hostname === "db01" && a.serverId === serverId));
  });

  it("keeps to the window and to the servers asked", async () => {
    const narrow = await queryAnnotations(db, orgId, [serverId], { from: t("10:35:00"), to: t("11:05:00") });
    assert.deepEqual(
      narrow.annotations.map((a) => a.kind),
      ["alert.firing", "alert.resolved"],
    );
    const spanning = await queryAnnotations(db, orgId, [serverId], { from: t("11:25:00"), to: t("11:26:00") });
    assert.deepEqual(
      spanning.annotations.map((a) => a.kind),
      ["proof_run.ran"],
      "a span overlapping the window is marked",
    );
    assert.deepEqual((await queryAnnotations(db, orgId, [quietId], window)).annotations, []);
  });

  it("keeps the newest when there are more than a chart can show", async () => {
    await db.pool.query(
      `INSERT INTO server_events (org_id, server_id, at, kind) SELECT $1, $2, $3::timestamptz + n * interval '1 second', 'agent.restarted' FROM generate_series(1, $4) AS n`,
      [orgId, quietId, t("10:00:00"), MAX_ANNOTATIONS + 5],
    );
    const many = await queryAnnotations(db, orgId, [quietId], window);
    assert.equal(many.truncated, true);
    assert.equal(many.annotations.length, MAX_ANNOTATIONS);
    assert.equal(many.annotations.at(-1)!.at, new Date(t("10:00:00").getTime() + (MAX_ANNOTATIONS + 5) * 1000).toISOString());
  });

  it("answers 404 for another organisation's server, and never reads its history", async () => {
    await assert.rejects(queryAnnotations(db, otherOrg, [serverId], window), { status: 404 });
    await assert.rejects(queryAnnotations(db, orgId, [serverId, "nope"], window), { status: 404 });
  });

  it("takes 1 to 4 servers and a chart window in its query string, and says what is wrong otherwise", () => {
    const ok = annotationsQuerySchema.parse({
      servers: `${serverId},${serverId}`,
      from: "2026-11-28T10:00:00Z",
      to: "2026-11-28T11:00:00Z",
    });
    assert.deepEqual(ok.servers, [serverId]);
    const bad = (input: Record<string, string>) =>
      annotationsQuerySchema.safeParse(input).error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    assert.deepEqual(bad({ servers: "a,b,c,d,e" }), ["servers: servers is a comma-separated list of 1 to 4 server ids"]);
    assert.deepEqual(bad({ servers: "a", from: "2026-11-28T11:00:00Z", to: "2026-11-28T10:00:00Z" }), ["from: from must be before to"]);
    assert.deepEqual(bad({ servers: "a", from: "2026-11-28T10:00:00Z", to: "2026-11-28T10:00:30Z" }), [
      "to: a window spans at least 1 minute",
    ]);
    assert.deepEqual(bad({ servers: "a", from: "yesterday" }), [
      "from: from is an ISO 8601 time with an offset, e.g. 2026-11-23T10:00:00Z",
    ]);
    assert.deepEqual(bad({ servers: "a", range: "24h", from: "2026-11-28T10:00:00Z" }), [
      "range: from goes with a custom window, not with range=24h: leave range out",
    ]);
    assert.deepEqual(bad({ servers: "a", range: "2h" }), ["range: range is one of: 1h, 24h, 7d, custom"]);
  });
});
