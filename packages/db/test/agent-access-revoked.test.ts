// The database announces every end of an agent's access on spindle_agent_access_revoked
// (migration 20261124170000_agent_access_revoked_trigger), whoever ends it, and nothing else:
// the updates every batch and report make stay silent.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";

const CHANNEL = "spindle_agent_access_revoked";

describe("announcing an agent's ended access", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;
  let listener: pg.Client;
  const heard: unknown[] = [];
  let wake = () => {};

  /** Runs the statement, then a marker NOTIFY, and returns what was announced before the marker. */
  async function announcedBy(sql: string, ...params: unknown[]): Promise<unknown[]> {
    heard.length = 0;
    await client.query(sql, params);
    await client.query(`SELECT pg_notify($1, '"marker"')`, [CHANNEL]);
    await new Promise<void>((resolve) => {
      wake = () => heard.includes("marker") && resolve();
      wake();
    });
    return heard.filter((h) => h !== "marker");
  }

  async function agent(orgId: string, hostname: string): Promise<{ agentId: string; serverId: string }> {
    const { rows } = await client.query<{ agentId: string; serverId: string }>(
      `WITH s AS (INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ($1, $2, $2, 'linux') RETURNING id, org_id)
       INSERT INTO agents (org_id, server_id, credential_hash) SELECT org_id, id, sha256($2::bytea) FROM s
       RETURNING id::text AS "agentId", server_id::text AS "serverId"`,
      [orgId, hostname],
    );
    return rows[0]!;
  }

  before(async () => {
    db = await createTestDatabase({ label: "access_revoked" });
    client = new pg.Client({ connectionString: db.url });
    listener = new pg.Client({ connectionString: db.url });
    await Promise.all([client.connect(), listener.connect()]);
    listener.on("notification", (message) => {
      heard.push(JSON.parse(message.payload ?? "null"));
      wake();
    });
    await listener.query(`LISTEN ${CHANNEL}`);
    for (const org of ["org-a", "org-b"]) {
      await client.query(`INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, [org]);
    }
  });
  after(async () => {
    await listener?.end();
    await client?.end();
    await db?.drop();
  });

  it("announces a revocation once, and not a second one", async () => {
    const a = await agent("org-a", "revoked");
    const revoke = `UPDATE agents SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`;
    assert.deepEqual(await announcedBy(revoke, a.agentId), [a]);
    assert.deepEqual(await announcedBy(`UPDATE agents SET revoked_at = now() WHERE id = $1`, a.agentId), []);
  });

  it("announces an identity taken over by a re-enrolment, not the agent rotating its own credential", async () => {
    const a = await agent("org-a", "taken-over");
    assert.deepEqual(
      await announcedBy(
        `UPDATE agents SET credential_hash = sha256('rotated'), credential_expires_at = now() + interval '90 days' WHERE id = $1`,
        a.agentId,
      ),
      [],
    );
    assert.deepEqual(
      await announcedBy(
        `UPDATE agents SET credential_hash = sha256('new host'), enrolled_at = now() + interval '1 second' WHERE id = $1`,
        a.agentId,
      ),
      [a],
    );
  });

  it("announces deleted agents, directly or with their organisation", async () => {
    const a = await agent("org-a", "deleted");
    assert.deepEqual(await announcedBy(`DELETE FROM agents WHERE id = $1`, a.agentId), [a]);
    const b1 = await agent("org-b", "b1");
    const b2 = await agent("org-b", "b2");
    const announced = await announcedBy(`DELETE FROM organizations WHERE id = 'org-b'`);
    assert.deepEqual(new Set(announced.map((x) => JSON.stringify(x))), new Set([b1, b2].map((x) => JSON.stringify(x))));
  });

  it("stays silent for the updates every batch and report make, and for a rolled-back revocation", async () => {
    const a = await agent("org-a", "busy");
    assert.deepEqual(
      await announcedBy(`UPDATE agents SET batch_hwm = batch_hwm + 1, capabilities = '{"ebpf": true}' WHERE id = $1`, a.agentId),
      [],
    );
    await client.query("BEGIN");
    await client.query(`UPDATE agents SET revoked_at = now() WHERE id = $1`, [a.agentId]);
    await client.query("ROLLBACK");
    assert.deepEqual(await announcedBy(`SELECT 1`), []);
  });
});
