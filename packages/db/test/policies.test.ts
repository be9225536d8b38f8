// The policy tables as the database enforces them, whatever the application does: immutable
// versions, one assignment per target, no reference into another organisation, and the
// spindle_policy_changed notification every gateway listens for.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";

const channel = "spindle_policy_changed";

describe("policy tables", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let sql: pg.Client;
  let listener: pg.Client;
  const heard: string[] = [];
  const ids = { serverA: "", serverB: "", policyA: "", policyB: "" };

  before(async () => {
    db = await createTestDatabase({ label: "policies" });
    sql = new pg.Client({ connectionString: db.url });
    listener = new pg.Client({ connectionString: db.url });
    await Promise.all([sql.connect(), listener.connect()]);
    listener.on("notification", (message) => {
      if (message.channel === channel) heard.push(message.payload ?? "");
    });
    await listener.query(`LISTEN ${channel}`);

    await sql.query(
      `INSERT INTO users (id, name, email) VALUES ('user-a', 'Ada', 'ada@example.com'), ('user-b', 'Bob', 'bob@example.com')`,
    );
    await sql.query(`INSERT INTO organizations (id, name, slug) VALUES ('org-a', 'A', 'a'), ('org-b', 'B', 'b')`);
    const servers = await sql.query<{ id: string }>(
      `INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ('org-a', 'm-a', 'db-a', 'linux'), ('org-b', 'm-b', 'db-b', 'linux') RETURNING id`,
    );
    [ids.serverA, ids.serverB] = servers.rows.map((row) => row.id) as [string, string];
    const policies = await sql.query<{ id: string }>(
      `INSERT INTO policies (org_id, name, created_by) VALUES ('org-a', 'postgres', 'user-a'), ('org-b', 'postgres', 'user-b') RETURNING id`,
    );
    [ids.policyA, ids.policyB] = policies.rows.map((row) => row.id) as [string, string];
  });
  after(async () => {
    await sql?.end();
    await listener?.end();
    await db?.drop();
  });

  /** Runs `work` and returns the notifications it caused (delivered at commit). */
  async function notificationsOf(work: () => Promise<unknown>): Promise<string[]> {
    await settle(); // earlier work's notifications must not count as this work's
    heard.length = 0;
    await work();
    await settle();
    return [...heard];
  }

  /** A round trip on the listener, then a moment: whatever was committed has been delivered. */
  async function settle() {
    await listener.query("SELECT 1");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const addVersion = (policyId: string, orgId: string, version: number, document: unknown = { schemaVersion: 1 }) =>
    sql.query(
      "INSERT INTO policy_versions (policy_id, org_id, version, document, created_by) VALUES ($1, $2, $3, $4, 'user-a') RETURNING id",
      [policyId, orgId, version, JSON.stringify(document)],
    );

  it("announces a new version to the gateways with the organisation id", async () => {
    const notes = await notificationsOf(() => addVersion(ids.policyA, "org-a", 1, { schemaVersion: 1, readCache: { enabled: false } }));
    assert.deepEqual(
      notes.map((note) => JSON.parse(note)),
      [{ orgId: "org-a" }],
    );
  });

  it("refuses to change or delete a version", async () => {
    await assert.rejects(sql.query("UPDATE policy_versions SET comment = 'rewritten' WHERE policy_id = $1", [ids.policyA]), /is immutable/);
    await assert.rejects(
      sql.query(`UPDATE policy_versions SET document = '{"schemaVersion": 1}' WHERE policy_id = $1`, [ids.policyA]),
      /is immutable/,
    );
    await assert.rejects(sql.query("DELETE FROM policy_versions WHERE policy_id = $1", [ids.policyA]), /is immutable/);
    await assert.rejects(
      sql.query("UPDATE policy_versions SET created_by = NULL WHERE policy_id = $1", [ids.policyA]),
      /is immutable/,
      "only the database's own ON DELETE SET NULL may clear the author",
    );
    const { rows } = await sql.query("SELECT version, comment FROM policy_versions WHERE policy_id = $1", [ids.policyA]);
    assert.deepEqual(rows, [{ version: 1, comment: "" }]);
  });

  it("numbers versions once per policy and stores only policy documents", async () => {
    await assert.rejects(addVersion(ids.policyA, "org-a", 1), /policy_versions_policy_id_version_key/);
    await assert.rejects(addVersion(ids.policyA, "org-a", 2, { readCache: {} }), /policy_versions_document_check/);
    await assert.rejects(addVersion(ids.policyA, "org-a", 2, [1]), /policy_versions_document_check/);
  });

  it("keeps policy names unique per organisation, ignoring case", async () => {
    await assert.rejects(sql.query("INSERT INTO policies (org_id, name) VALUES ('org-a', 'Postgres')"), /policies_org_id_name_key/);
    await assert.rejects(sql.query("INSERT INTO policies (org_id, name) VALUES ('org-a', ' padded ')"), /policies_name_check/);
  });

  it("refuses rows that point into another organisation", async () => {
    await assert.rejects(addVersion(ids.policyA, "org-b", 2), /foreign key/);
    await assert.rejects(
      sql.query("INSERT INTO policy_assignments (org_id, policy_id, scope) VALUES ('org-b', $1, 'organization')", [ids.policyA]),
      /foreign key/,
    );
    await assert.rejects(
      sql.query("INSERT INTO policy_assignments (org_id, policy_id, scope, server_id) VALUES ('org-a', $1, 'server', $2)", [
        ids.policyA,
        ids.serverB,
      ]),
      /foreign key/,
    );
    await assert.rejects(
      sql.query("INSERT INTO server_policy_status (org_id, server_id) VALUES ('org-a', $1)", [ids.serverB]),
      /foreign key/,
    );
  });

  it("allows one organisation default, one policy per tag and one per server, and announces each change", async () => {
    const insert = (scope: string, tag: string | null, serverId: string | null) =>
      sql.query("INSERT INTO policy_assignments (org_id, policy_id, scope, tag, server_id) VALUES ('org-a', $1, $2, $3, $4) RETURNING id", [
        ids.policyA,
        scope,
        tag,
        serverId,
      ]);
    const notes = await notificationsOf(() => insert("organization", null, null));
    assert.deepEqual(notes, ['{"orgId" : "org-a"}']);
    await assert.rejects(insert("organization", null, null), /policy_assignments_organization_key/);
    await insert("tag", "postgres", null);
    await assert.rejects(insert("tag", "postgres", null), /policy_assignments_tag_key/);
    await insert("server", null, ids.serverA);
    await assert.rejects(insert("server", null, ids.serverA), /policy_assignments_server_key/);
    await assert.rejects(insert("tag", "Not A Tag", null), /policy_assignments_tag_check/);
    await assert.rejects(insert("tag", null, null), /policy_assignments_check/);
    await assert.rejects(insert("organization", "postgres", null), /policy_assignments_check/);

    const removed = await notificationsOf(() => sql.query("DELETE FROM policy_assignments WHERE scope = 'tag' AND org_id = 'org-a'"));
    assert.deepEqual(
      removed.map((note) => JSON.parse(note)),
      [{ orgId: "org-a" }],
    );
  });

  it("announces a server's tag change, but not its heartbeat", async () => {
    const tagged = await notificationsOf(() => sql.query("UPDATE servers SET tags = '{postgres,prod}' WHERE id = $1", [ids.serverB]));
    assert.deepEqual(
      tagged.map((note) => JSON.parse(note)),
      [{ orgId: "org-b" }],
    );
    const heartbeat = await notificationsOf(() =>
      sql.query("UPDATE servers SET last_seen_at = now(), tags = tags WHERE id = $1", [ids.serverB]),
    );
    assert.deepEqual(heartbeat, []);
  });

  it("announces nothing for a change that is rolled back", async () => {
    const notes = await notificationsOf(async () => {
      await sql.query("BEGIN");
      await addVersion(ids.policyB, "org-b", 1);
      await sql.query("ROLLBACK");
    });
    assert.deepEqual(notes, []);
  });

  it("still lets a deleted author and a deleted organisation go", async () => {
    await sql.query("DELETE FROM users WHERE id = 'user-a'");
    const authors = await sql.query("SELECT created_by FROM policy_versions WHERE policy_id = $1", [ids.policyA]);
    assert.deepEqual(authors.rows, [{ created_by: null }]);
    await sql.query("DELETE FROM organizations WHERE id = 'org-a'");
    const left = await sql.query("SELECT count(*)::int AS n FROM policy_versions WHERE org_id = 'org-a'");
    assert.equal(left.rows[0].n, 0);
  });

  it("constrains the status the gateway writes", async () => {
    const write = (status: string, hash: string | null) =>
      sql.query("INSERT INTO server_policy_status (org_id, server_id, status, applied_hash) VALUES ('org-b', $1, $2, $3)", [
        ids.serverB,
        status,
        hash,
      ]);
    await assert.rejects(write("done", null), /server_policy_status_status_check/);
    await assert.rejects(write("applied", "ABC"), /server_policy_status_applied_hash_check/);
    await write("applied", "0".repeat(64));
    const { rows } = await sql.query("SELECT status, message, reported_at FROM server_policy_status WHERE server_id = $1", [ids.serverB]);
    assert.deepEqual(rows, [{ status: "applied", message: "", reported_at: null }]);
  });

  it("checks every policy hash column as 64 lowercase hex digits, without a counted regex", async () => {
    const columns = [
      ["server_policy_status", "desired_version_hash"],
      ["server_policy_status", "applied_hash"],
      ["server_policy_status", "reported_hash"],
      ["server_effective_policies", "hash"],
    ] as const;
    const refused = ["a".repeat(63), "a".repeat(65), "A".repeat(64), "g".repeat(64), `${"a".repeat(63)}\n`, `${"a".repeat(64)}\n`, ""];
    for (const [table, column] of columns) {
      // The constraint itself, evaluated on each value in a rolled-back insert or update.
      const passes = async (value: string | null) => {
        await sql.query("BEGIN");
        try {
          if (table === "server_policy_status") {
            await sql.query(
              `INSERT INTO server_policy_status (org_id, server_id, ${column}) VALUES ('org-b', $1, $2)
              ON CONFLICT (server_id) DO UPDATE SET ${column} = EXCLUDED.${column}`,
              [ids.serverB, value],
            );
          } else {
            await sql.query(
              `INSERT INTO server_effective_policies (org_id, server_id, document, hash) VALUES ('org-b', $1, CASE WHEN $2::text IS NULL THEN NULL ELSE '{"schemaVersion": 1}'::jsonb END, $2)
              ON CONFLICT (server_id) DO UPDATE SET document = EXCLUDED.document, hash = EXCLUDED.hash`,
              [ids.serverB, value],
            );
          }
          return true;
        } catch (error) {
          assert.match(String(error), new RegExp(`${table}_${column}_check`));
          return false;
        } finally {
          await sql.query("ROLLBACK");
        }
      };
      assert.equal(await passes("0123456789abcdef".repeat(4)), true, `${table}.${column}: 64 hex digits`);
      assert.equal(await passes(null), true, `${table}.${column}: NULL`);
      for (const value of refused) assert.equal(await passes(value), false, `${table}.${column}: ${JSON.stringify(value)}`);
      // PostgreSQL runs '^[0-9a-f]{64}$' as a counted automaton, about 30 µs a value: three of them
      // per OpAMP confirmation cost a fleet-wide change most of its database CPU.
      const { rows } = await sql.query<{ def: string }>("SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = $1", [
        `${table}_${column}_check`,
      ]);
      assert.equal(rows.length, 1);
      assert.doesNotMatch(rows[0]!.def, /\{64\}/, `${table}.${column}: ${rows[0]!.def}`);
    }
  });
});
