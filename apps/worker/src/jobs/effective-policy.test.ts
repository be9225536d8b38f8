// The materialised effective policy against a real PostgreSQL: inheritance order, the hash,
// only changed rows written and announced, invalid merges keeping the previous policy, and the
// triggers and listener that start a recompute.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mergePolicies, parsePolicy, type PolicyDocument } from "@spindle/policy";
import { policyHash } from "@spindle/policy/hash";
import { createPool } from "@spindle/db";
import { createTestDatabase, type TestDatabase } from "@spindle/db/testing";
import pg from "pg";
import { skipReason } from "../test-support/telemetry.js";
import { recomputeEffectivePolicies } from "./effective-policy.js";
import { listenForPolicyChanges } from "./effective-policy-listener.js";

const orgDefault = { schemaVersion: 1, telemetry: { intervalSeconds: 30 } };
const postgresTag = {
  schemaVersion: 1,
  readCache: { enabled: true, include: ["/var/lib/postgresql/**"] },
  telemetry: { intervalSeconds: 20 },
};
const webTag = { schemaVersion: 1, telemetry: { intervalSeconds: 5, ebpf: "off" } };
const serverOwn = { schemaVersion: 1, readCache: { budgetBytes: 1073741824 } };

function expected(...layers: Record<string, unknown>[]) {
  const documents = layers as PolicyDocument[];
  const parsed = parsePolicy(mergePolicies(documents[0]!, ...documents.slice(1)));
  assert.ok(parsed.ok);
  return { document: parsed.policy, hash: policyHash(parsed.policy) };
}

describe("effective policies", { skip: skipReason }, () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let watcher: pg.Client;
  const announced: { channel: string; payload: Record<string, string> }[] = [];
  let dbServer: string;
  let webServer: string;

  async function insertPolicy(name: string, document: Record<string, unknown>): Promise<string> {
    const { rows } = await pool.query<{ id: string }>("INSERT INTO policies (org_id, name) VALUES ('org-a', $1) RETURNING id::text", [
      name,
    ]);
    await saveVersion(rows[0]!.id, document);
    return rows[0]!.id;
  }
  async function saveVersion(policyId: string, document: Record<string, unknown>): Promise<void> {
    await pool.query(
      `INSERT INTO policy_versions (policy_id, org_id, version, document)
       SELECT $1, 'org-a', coalesce(max(version), 0) + 1, $2 FROM policy_versions WHERE policy_id = $1`,
      [policyId, JSON.stringify(document)],
    );
  }
  async function row(serverId: string) {
    const { rows } = await pool.query("SELECT document, hash, layers, error FROM server_effective_policies WHERE server_id = $1", [
      serverId,
    ]);
    return rows[0];
  }
  /** Notifications arrive asynchronously; a NOTIFY round trip on the same connection flushes them. */
  async function drainAnnouncements() {
    await watcher.query("SELECT 1");
    await new Promise((resolve) => setTimeout(resolve, 50));
    return announced.splice(0);
  }

  before(async () => {
    db = await createTestDatabase({ label: "effective_policy" });
    pool = createPool(db.url, { max: 4 });
    watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    watcher.on("notification", (n) => announced.push({ channel: n.channel, payload: JSON.parse(n.payload ?? "{}") }));
    await watcher.query("LISTEN spindle_effective_policy_changed; LISTEN spindle_policy_changed");
    await pool.query("INSERT INTO organizations (id, name, slug) VALUES ('org-a', 'A', 'a'), ('org-b', 'B', 'b')");
    const servers = await pool.query<{ id: string }>(
      `INSERT INTO servers (org_id, machine_id, hostname, os, tags) VALUES
         ('org-a', 'm1', 'db-1', 'linux', '{web,postgres}'), ('org-a', 'm2', 'web-1', 'linux', '{web}')
       RETURNING id::text`,
    );
    [dbServer, webServer] = servers.rows.map((r) => r.id) as [string, string];
  });
  after(async () => {
    await watcher?.end();
    await pool?.end();
    await db?.drop();
  });

  it("announces a new server's organisation, so its policy is computed before its agent connects", async () => {
    const seen = await drainAnnouncements();
    assert.deepEqual(
      seen.filter((n) => n.channel === "spindle_policy_changed").map((n) => n.payload),
      [{ orgId: "org-a" }],
    );
  });

  it("gives a server without assignments the defaults, with their hash", async () => {
    const result = await recomputeEffectivePolicies(pool, "org-a");
    assert.deepEqual(result, { organizations: 1, servers: 2, changed: 2, invalid: 0 });
    const defaults = parsePolicy({ schemaVersion: 1 });
    assert.ok(defaults.ok);
    assert.deepEqual(await row(webServer), { document: defaults.policy, hash: policyHash(defaults.policy), layers: [], error: null });
    const seen = await drainAnnouncements();
    assert.deepEqual(
      seen.map((n) => n.payload).sort((a, b) => (a.serverId! < b.serverId! ? -1 : 1)),
      [dbServer, webServer].sort().map((serverId) => ({ serverId, hash: policyHash(defaults.policy) })),
    );
  });

  it("merges organisation default, tags in tag-name order, then the server's own layer", async () => {
    const org = await insertPolicy("baseline", orgDefault);
    const web = await insertPolicy("web", webTag);
    const postgres = await insertPolicy("postgres", postgresTag);
    const own = await insertPolicy("db-1 only", serverOwn);
    await pool.query(
      `INSERT INTO policy_assignments (org_id, policy_id, scope, tag, server_id) VALUES
         ('org-a', $1, 'organization', NULL, NULL), ('org-a', $2, 'tag', 'web', NULL),
         ('org-a', $3, 'tag', 'postgres', NULL), ('org-a', $4, 'server', NULL, $5)`,
      [org, web, postgres, own, dbServer],
    );
    await drainAnnouncements();
    assert.deepEqual(await recomputeEffectivePolicies(pool, "org-a"), { organizations: 1, servers: 2, changed: 2, invalid: 0 });

    // "postgres" sorts before "web": web's interval (5 s) and ebpf off win over postgres's 20 s.
    const dbExpected = expected(orgDefault, postgresTag, webTag, serverOwn);
    const stored = await row(dbServer);
    assert.deepEqual(stored.document, dbExpected.document);
    assert.equal(stored.hash, dbExpected.hash);
    assert.equal(stored.document.telemetry.intervalSeconds, 5);
    assert.deepEqual(
      stored.layers.map((l: { scope: string; tag: string | null; policyName: string; version: number }) => [
        l.scope,
        l.tag,
        l.policyName,
        l.version,
      ]),
      [
        ["organization", null, "baseline", 1],
        ["tag", "postgres", "postgres", 1],
        ["tag", "web", "web", 1],
        ["server", null, "db-1 only", 1],
      ],
    );
    assert.equal((await row(webServer)).hash, expected(orgDefault, webTag).hash);
    const seen = await drainAnnouncements();
    assert.equal(seen.length, 2);
    assert.ok(seen.some((n) => n.payload.serverId === dbServer && n.payload.hash === dbExpected.hash));
  });

  it("writes and announces nothing when nothing changed", async () => {
    assert.deepEqual(await recomputeEffectivePolicies(pool, null), { organizations: 1, servers: 2, changed: 0, invalid: 0 });
    assert.deepEqual(await drainAnnouncements(), []);
  });

  it("uses each policy's latest version and announces only the servers it reaches", async () => {
    const { rows } = await pool.query<{ id: string }>("SELECT id::text FROM policies WHERE name = 'db-1 only'");
    const ownV2 = { schemaVersion: 1, readCache: { budgetBytes: 2147483648 } };
    await saveVersion(rows[0]!.id, ownV2);
    await drainAnnouncements();
    assert.equal((await recomputeEffectivePolicies(pool, "org-a")).changed, 1);
    assert.equal((await row(dbServer)).hash, expected(orgDefault, postgresTag, webTag, ownV2).hash);
    assert.equal((await row(dbServer)).layers[3].version, 2);
    assert.deepEqual(
      (await drainAnnouncements()).map((n) => n.payload.serverId),
      [dbServer],
    );
  });

  it("keeps the previous policy and records why when the merge is invalid", async () => {
    const before = await row(dbServer);
    const { rows } = await pool.query<{ id: string }>("SELECT id::text FROM policies WHERE name = 'db-1 only'");
    // A pin outside the managed set: each layer is well-formed, the merged policy is not.
    await saveVersion(rows[0]!.id, { schemaVersion: 1, readCache: { pin: ["/srv/elsewhere"] } });
    await drainAnnouncements();
    assert.deepEqual(await recomputeEffectivePolicies(pool, "org-a"), { organizations: 1, servers: 2, changed: 0, invalid: 1 });
    const after = await row(dbServer);
    assert.equal(after.hash, before.hash);
    assert.deepEqual(after.document, before.document);
    assert.match(after.error, /db-1 only v3 \(server\) is invalid, so the previous policy stays in force: readCache\.pin\[0\]/);
    assert.deepEqual(await drainAnnouncements(), []);

    // Fixed by the next save: the error clears and the new policy is announced.
    await saveVersion(rows[0]!.id, serverOwn);
    await drainAnnouncements();
    assert.equal((await recomputeEffectivePolicies(pool, "org-a")).changed, 1);
    assert.equal((await row(dbServer)).error, null);
  });

  it("records an invalid first merge with no document to fall back on", async () => {
    const { rows } = await pool.query<{ id: string }>(
      "INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ('org-b', 'm3', 'lone', 'linux') RETURNING id::text",
    );
    const { rows: policy } = await pool.query<{ id: string }>(
      "INSERT INTO policies (org_id, name) VALUES ('org-b', 'broken') RETURNING id::text",
    );
    await pool.query(
      `INSERT INTO policy_versions (policy_id, org_id, version, document) VALUES ($1, 'org-b', 1, '{"schemaVersion": 1, "readCache": {"enabled": true}}')`,
      [policy[0]!.id],
    );
    await pool.query("INSERT INTO policy_assignments (org_id, policy_id, scope) VALUES ('org-b', $1, 'organization')", [policy[0]!.id]);
    assert.deepEqual(await recomputeEffectivePolicies(pool, "org-b"), { organizations: 1, servers: 1, changed: 0, invalid: 1 });
    const stored = await row(rows[0]!.id);
    assert.equal(stored.document, null);
    assert.equal(stored.hash, null);
    assert.match(stored.error, /readCache\.include: /);
  });
});

describe("the spindle_policy_changed listener", { skip: skipReason }, () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  before(async () => {
    db = await createTestDatabase({ label: "policy_listener" });
    pool = createPool(db.url, { max: 2 });
    await pool.query("INSERT INTO organizations (id, name, slug) VALUES ('org-a', 'A', 'a')");
  });
  after(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("hears organisations, and reconnects after its connection is killed", async () => {
    const heard: string[] = [];
    const listening: boolean[] = [];
    const problems: string[] = [];
    let wake = () => {};
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    let waiting = next();
    const listener = listenForPolicyChanges({
      databaseUrl: db.url,
      onOrganizationChanged: (orgId) => {
        heard.push(orgId);
        wake();
      },
      onListening: (reconnected) => {
        listening.push(reconnected);
        wake();
      },
      onProblem: (message) => problems.push(message),
      minRetryMs: 20,
      maxRetryMs: 100,
    });
    try {
      await waiting;
      waiting = next();
      await pool.query("INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ('org-a', 'm1', 'h', 'linux')");
      await waiting;
      assert.deepEqual(heard, ["org-a"]);

      waiting = next();
      await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'spindle-worker-listen'");
      await waiting;
      assert.deepEqual(listening, [false, true]);
      assert.match(problems[0] ?? "", /lost the spindle_policy_changed listener/);

      waiting = next();
      await pool.query("UPDATE servers SET tags = '{db}'");
      await waiting;
      assert.deepEqual(heard, ["org-a", "org-a"]);
    } finally {
      await listener.stop();
    }
  });
});
