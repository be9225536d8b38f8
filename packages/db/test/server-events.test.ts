// The database keeps a server's history for the marks on its charts (migration
// 20261128170000_server_events): a policy applied or refused, the agent starting, restarting or
// changing version, written by triggers whoever changes the state, once per change, and never
// for the heartbeats that rewrite the same rows. Written as the gateway writes (its role, its
// organisation set), and read by another organisation as nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { withOrgTransaction } from "../src/tenant.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";

type Event = { kind: string; at: Date; details: Record<string, unknown> };

const hashA = "a".repeat(64);
const hashB = "b".repeat(64);

describe("server events", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;
  let serverId = "";
  let agentId = "";

  /** Runs statements as the gateway does: its role, the organisation set, one transaction. */
  const asGateway = (org: string, statements: [string, unknown[]][]) =>
    withOrgTransaction(client, org, "spindle_gateway", async (tx) => {
      for (const [sql, params] of statements) await tx.query(sql, params);
    });

  const events = async (org = "org-a"): Promise<Event[]> =>
    withOrgTransaction(
      client,
      org,
      "spindle_console",
      async (tx) =>
        (await tx.query<Event>("SELECT kind, at, details FROM server_events WHERE server_id = $1 ORDER BY id", [serverId])).rows,
    );

  // The gateway's own upsert shape (apps/gateway/internal/store/opamp_batch.go), reduced to one row.
  const report = (status: string, hash: string, applied: string | null, message = "") =>
    asGateway("org-a", [
      [
        `
      INSERT INTO server_policy_status AS p (org_id, server_id, desired_version_hash, reported_hash, applied_hash, status, message, reported_at, applied_at)
      VALUES ('org-a', $1, $2, $2, $3, $4, $5, now(), CASE WHEN $3::text IS NOT NULL THEN now() END)
      ON CONFLICT (server_id) DO UPDATE SET reported_hash = EXCLUDED.reported_hash, status = EXCLUDED.status, message = EXCLUDED.message,
        reported_at = EXCLUDED.reported_at, applied_hash = COALESCE(EXCLUDED.applied_hash, p.applied_hash),
        applied_at = CASE WHEN EXCLUDED.applied_hash IS NOT NULL AND p.applied_hash IS DISTINCT FROM EXCLUDED.applied_hash
                          THEN EXCLUDED.applied_at ELSE p.applied_at END`,
        [serverId, hash, applied, status, message],
      ],
    ]);

  before(async () => {
    db = await createTestDatabase({ label: "server_events" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    for (const org of ["org-a", "org-b"]) await client.query(`INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, [org]);
    ({
      rows: [{ id: serverId }],
    } = (await client.query(
      `INSERT INTO servers (org_id, machine_id, hostname, os, agent_version) VALUES ('org-a', 'm1', 'db01', 'linux', '0.1.0') RETURNING id::text`,
    )) as { rows: [{ id: string }] });
    ({
      rows: [{ id: agentId }],
    } = (await client.query(
      `INSERT INTO agents (org_id, server_id, credential_hash) VALUES ('org-a', $1, sha256('c')) RETURNING id::text`,
      [serverId],
    )) as { rows: [{ id: string }] });
    await client.query(
      `INSERT INTO server_effective_policies (org_id, server_id, document, hash, layers) VALUES ('org-a', $1, '{"schemaVersion": 1}', $2, $3)`,
      [
        serverId,
        hashA,
        JSON.stringify([{ scope: "organization", tag: null, policyId: "p1", policyName: "Sample every 5 s", versionId: "v2", version: 2 }]),
      ],
    );
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it("records an applied policy once, with the layers in force, and not the reports that repeat it", async () => {
    await report("pending", hashA, null);
    assert.deepEqual(await events(), []);
    await report("applied", hashA, hashA);
    await report("applied", hashA, hashA); // the agent reconnects and says the same
    const [applied, ...rest] = await events();
    assert.equal(rest.length, 0);
    assert.equal(applied!.kind, "policy.applied");
    assert.equal(applied!.details.hash, hashA);
    assert.deepEqual(
      (applied!.details.layers as { policyName: string; version: number }[]).map((l) => [l.policyName, l.version]),
      [["Sample every 5 s", 2]],
    );
  });

  it("records a refusal once per refused policy, and the next apply of another hash", async () => {
    await report("failed", hashB, null, "ebpf is off on this host");
    await report("failed", hashB, null, "ebpf is off on this host");
    await report("applied", hashB, hashB);
    const kinds = (await events()).map((e) => [e.kind, e.details.hash, e.details.message ?? null]);
    assert.deepEqual(kinds.slice(1), [
      ["policy.failed", hashB, "ebpf is off on this host"],
      ["policy.applied", hashB, null],
    ]);
    assert.equal((await events()).at(-1)!.details.previousHash, hashA);
  });

  it("records the agent starting, restarting and changing version; heartbeats record nothing", async () => {
    const before = (await events()).length;
    const health = (startedAt: string) =>
      JSON.stringify({ healthy: true, status: "running", startedAt, reportedAt: new Date().toISOString() });
    const setHealth = (startedAt: string) =>
      asGateway("org-a", [["UPDATE agents SET health = $2::jsonb, opamp_seen_at = now() WHERE id = $1", [agentId, health(startedAt)]]]);
    await setHealth("2026-11-28T10:00:00Z");
    await setHealth("2026-11-28T10:00:00Z"); // a heartbeat: same start
    await asGateway("org-a", [
      ["UPDATE agents SET health = COALESCE(NULL::jsonb, health), opamp_seen_at = now() WHERE id = $1", [agentId]],
    ]);
    await setHealth("2026-11-28T11:00:00Z");
    const version = (v: string) =>
      asGateway("org-a", [
        ["UPDATE servers SET last_seen_at = now(), agent_version = COALESCE(NULLIF($2, ''), agent_version) WHERE id = $1", [serverId, v]],
      ]);
    await version(""); // a batch without the attribute
    await version("0.1.0"); // unchanged
    await version("0.2.0");
    const added = (await events()).slice(before);
    assert.deepEqual(
      added.map((e) => e.kind),
      ["agent.started", "agent.restarted", "agent.upgraded"],
    );
    assert.equal(added[0]!.at.toISOString(), "2026-11-28T10:00:00.000Z");
    assert.equal(added[1]!.details.previousStartedAt, "2026-11-28T10:00:00Z");
    assert.deepEqual([added[2]!.details.from, added[2]!.details.to], ["0.1.0", "0.2.0"]);
  });

  it("never marks the future from a skewed agent clock", async () => {
    await asGateway("org-a", [
      ["UPDATE agents SET health = $2::jsonb WHERE id = $1", [agentId, JSON.stringify({ startedAt: "2099-01-01T00:00:00Z" })]],
    ]);
    const last = (await events()).at(-1)!;
    assert.equal(last.kind, "agent.restarted");
    assert.ok(last.at.getTime() <= Date.now());
  });

  it("keeps events to their organisation, and refuses one pointing into another", async () => {
    assert.deepEqual(await events("org-b"), []);
    await assert.rejects(
      asGateway("org-b", [
        ["INSERT INTO server_events (org_id, server_id, at, kind) VALUES ('org-a', $1, now(), 'policy.rolled_back')", [serverId]],
      ]),
      /row-level security/,
    );
    await assert.rejects(
      client.query("INSERT INTO server_events (org_id, server_id, at, kind) VALUES ('org-b', $1, now(), 'policy.rolled_back')", [serverId]),
      /foreign key/,
    );
    await assert.rejects(
      client.query("INSERT INTO server_events (org_id, server_id, at, kind) VALUES ('org-a', $1, now(), 'Rolled back!')", [serverId]),
      /check constraint/,
    );
  });

  it("goes with its server", async () => {
    await client.query("DELETE FROM agents WHERE id = $1", [agentId]);
    await client.query("DELETE FROM servers WHERE id = $1", [serverId]);
    assert.equal((await client.query("SELECT count(*)::int AS n FROM server_events")).rows[0].n, 0);
  });
});
