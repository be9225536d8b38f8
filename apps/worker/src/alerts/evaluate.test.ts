// Alert evaluation against a real PostgreSQL (plain mode, rollups by the worker's own job):
// defaults seeded once, a latency rule through pending → firing → resolved with hysteresis,
// no data, silences marking history, one transition per tick under concurrent evaluation, the
// transition hook inside the transaction, tenant isolation, and the 7-day preview.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addColumnSums, defaultAlertRules, latencyBucketColumns, type AlertTransitionGroup } from "@spindle/domain";
import { rollupPending } from "@spindle/timeseries";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { evaluateOrganization } from "./evaluate.js";
import { previewRule } from "@spindle/timeseries";
import { fetchSourceRows, fetchWindowSums } from "@spindle/timeseries";
import { evaluateAllOrganizations } from "./task.js";

const T = (hhmmss: string) => new Date(`2026-11-20T${hhmmss}Z`);

/** 100 reads every 10 s on `device` for each listed minute of 08:mm, all in one latency bucket. */
async function insertReads(db: PlainDatabase, org: string, server: string, device: string, minutes: { minute: number; bucket: number }[]) {
  const values: unknown[] = [];
  const tuples: string[] = [];
  for (const { minute, bucket } of minutes) {
    for (let s = 10; s <= 60; s += 10) {
      const time = new Date(Date.UTC(2026, 10, 20, 8, minute, 0) + s * 1000 - 1); // inside the minute
      const counts = latencyBucketColumns.map((_, i) => (i === bucket ? 100 : 0));
      values.push(time, org, server, device, 10, 100, 100 * 2 ** bucket * 1e-6, ...counts);
      const base = values.length - 7 - counts.length;
      tuples.push(`('read', ${Array.from({ length: 7 + counts.length }, (_, c) => `$${base + c + 1}`).join(", ")})`);
    }
  }
  await db.pool.query(
    `INSERT INTO disk_latency (operation, time, org_id, server_id, device, interval_seconds, operations, sum_seconds, ${latencyBucketColumns.join(", ")})
     VALUES ${tuples.join(", ")}`,
    values,
  );
  await rollupPending(db.pool);
}

const slow = 18; // (131.072, 262.144] ms
const fast = 10; // (0.512, 1.024] ms

describe("alert evaluation", { skip: skipReason }, () => {
  let db: PlainDatabase;
  const server: Record<string, string> = {};
  let ruleA: string;

  before(async () => {
    db = await openPlainDatabase("alerts_eval");
    for (const org of ["org-a", "org-b"]) {
      await db.pool.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)", [org]);
      const { rows } = await db.pool.query(
        "INSERT INTO servers (org_id, machine_id, hostname, os, tags, last_seen_at) VALUES ($1, 'm1', 'db-' || $1, 'linux', '{db}', '2026-11-20T08:12:59Z') RETURNING id::text",
        [org],
      );
      server[org] = rows[0].id;
    }
  });
  after(async () => db?.close());

  it("seeds the default rules once per organisation, and leaves edits and deletions alone", async () => {
    const first = await evaluateOrganization(db.pool, "org-a", T("07:00:00"));
    assert.equal(first.defaultRulesAdded, defaultAlertRules.length);
    const keys = (await db.pool.query("SELECT default_key FROM alert_rules WHERE org_id = 'org-a' ORDER BY default_key")).rows.map(
      (r) => r.default_key,
    );
    assert.deepEqual(keys, defaultAlertRules.map((r) => r.key).sort());
    await db.pool.query("UPDATE alert_rules SET enabled = false WHERE org_id = 'org-a' AND default_key = 'split_io_high'");
    await db.pool.query("DELETE FROM alert_rules WHERE org_id = 'org-a' AND default_key = 'policy_failed'");
    const again = await evaluateAllOrganizations(db.pool, T("07:00:30"));
    assert.equal(again.organizations, 2);
    assert.equal(again.failures.length, 0);
    const counts = (
      await db.pool.query(
        "SELECT org_id, count(*)::int AS n, count(*) FILTER (WHERE enabled)::int AS enabled FROM alert_rules GROUP BY org_id ORDER BY org_id",
      )
    ).rows;
    assert.deepEqual(counts, [
      { org_id: "org-a", n: defaultAlertRules.length - 1, enabled: defaultAlertRules.length - 2 },
      { org_id: "org-b", n: defaultAlertRules.length, enabled: defaultAlertRules.length },
    ]);
  });

  it("takes a p99 latency rule through pending, firing and resolved with hysteresis, then no data; a silence marks history", async () => {
    // Slow reads in minutes 0-3 and 5, fast in 4 and 6-12: the fast minute 4 must not resolve.
    const minutes = Array.from({ length: 13 }, (_, m) => ({ minute: m, bucket: [0, 1, 2, 3, 5].includes(m) ? slow : fast }));
    await insertReads(db, "org-a", server["org-a"]!, "sda", minutes);
    // The same slow reads in org B, on a device of the same name: org A's rule must not see them.
    await insertReads(
      db,
      "org-b",
      server["org-b"]!,
      "sda",
      minutes.map((m) => ({ ...m, bucket: slow })),
    );
    const { rows } = await db.pool.query(
      `INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, for_seconds, resolve_seconds, no_data_seconds, scope, severity, note)
       VALUES ('org-a', 'p99 read > 100 ms', 'disk.read_latency', 'p99', '>', 100, 60, 60, 90, 120, 'organization', 'critical', 'check the array') RETURNING id::text`,
    );
    ruleA = rows[0].id;
    await db.pool.query(
      `INSERT INTO alert_silences (org_id, scope, server_id, starts_at, ends_at, comment) VALUES ('org-a', 'server', $1, '2026-11-20T08:00:00Z', '2026-11-20T08:03:00Z', 'disk swap')`,
      [server["org-a"]],
    );
    const groups: AlertTransitionGroup[] = [];
    const onTransition = async (_tx: unknown, group: AlertTransitionGroup) => void groups.push(group);
    const states: string[] = [];
    for (let t = Date.parse("2026-11-20T08:01:00Z"); t <= Date.parse("2026-11-20T08:15:00Z"); t += 30_000) {
      const result = await evaluateOrganization(db.pool, "org-a", new Date(t), onTransition);
      assert.equal(result.evaluated, true);
      const state = await db.pool.query("SELECT state FROM alert_states WHERE rule_id = $1", [ruleA]);
      states.push(`${new Date(t).toISOString().slice(11, 19)} ${state.rows[0]?.state}`);
    }
    const history = await db.pool.query(
      `SELECT to_char(at AT TIME ZONE 'UTC', 'HH24:MI:SS') AS at, from_state, to_state, value, silenced_by IS NOT NULL AS silenced, component, server_id::text
         FROM alert_history WHERE rule_id = $1 ORDER BY at`,
      [ruleA],
    );
    assert.deepEqual(
      history.rows.map((r) => [r.at, r.from_state, r.to_state, r.value, r.silenced]),
      [
        ["08:01:00", "ok", "pending", 131.072, true],
        ["08:02:00", "pending", "firing", 131.072, true],
        ["08:08:00", "firing", "ok", 0.512, false],
        ["08:15:00", "ok", "no_data", null, false],
      ],
      states.join("\n"),
    );
    assert.ok(
      history.rows.every((r) => r.server_id === server["org-a"] && r.component === "sda"),
      "only org A's own server",
    );
    const otherOrg = await db.pool.query("SELECT count(*)::int AS n FROM alert_states WHERE org_id = 'org-a' AND server_id = $1", [
      server["org-b"],
    ]);
    assert.equal(otherOrg.rows[0].n, 0);

    const mine = groups.filter((g) => g.ruleId === ruleA);
    assert.deepEqual(
      mine.map((g) => [g.at.toISOString(), g.transitions.map((x) => x.kind)]),
      [
        ["2026-11-20T08:01:00.000Z", ["pending"]],
        ["2026-11-20T08:02:00.000Z", ["firing"]],
        ["2026-11-20T08:08:00.000Z", ["resolved"]],
        ["2026-11-20T08:15:00.000Z", ["no_data"]],
      ],
    );
    assert.equal(mine[0]!.severity, "critical");
    assert.equal(mine[0]!.note, "check the array");
    assert.match(mine[1]!.transitions[0]!.silencedBy ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(mine[2]!.transitions[0]!.silencedBy, null);
  });

  it("sums a window in the database exactly as the minutes add up", async () => {
    const client = await db.pool.connect();
    try {
      const query = { orgId: "org-a", from: T("07:59:00"), to: T("08:06:00"), serverIds: [server["org-a"]!, server["org-b"]!] };
      for (const source of ["disk_latency_read", "disk_io"] as const) {
        const minutes = await fetchSourceRows(client, source, query);
        const windows = await fetchWindowSums(client, source, query, T("08:02:00"));
        assert.deepEqual([...windows.keys()], [...minutes.keys()]);
        for (const [key, subject] of minutes) {
          const inWindow = subject.rows.filter((row) => row.start >= T("08:02:00").getTime());
          assert.deepEqual(windows.get(key)!.rows, [{ start: Math.max(...inWindow.map((r) => r.start)), sums: addColumnSums(inWindow) }]);
        }
      }
      // No bucket in the window: an empty row at the newest bucket, for the no-data decision.
      const empty = await fetchWindowSums(client, "disk_latency_read", { ...query, to: T("08:20:00") }, T("08:15:00"));
      assert.deepEqual(
        [...empty.values()].map((s) => s.rows),
        [[{ start: T("08:12:00").getTime(), sums: {} }]],
      );
    } finally {
      client.release();
    }
  });

  it("writes one transition when two workers evaluate the same tick", async () => {
    await insertReads(db, "org-a", server["org-a"]!, "sdb", [{ minute: 20, bucket: slow }]);
    await db.pool.query("UPDATE alert_rules SET for_seconds = 0 WHERE id = $1", [ruleA]);
    const tick = T("08:21:00");
    const [one, two] = await Promise.all([evaluateOrganization(db.pool, "org-a", tick), evaluateOrganization(db.pool, "org-a", tick)]);
    assert.deepEqual([one.evaluated, two.evaluated].sort(), [false, true]);
    const { rows } = await db.pool.query("SELECT to_state FROM alert_history WHERE rule_id = $1 AND component = 'sdb'", [ruleA]);
    assert.deepEqual(rows, [{ to_state: "firing" }]);
    const later = await evaluateOrganization(db.pool, "org-a", T("08:20:30"));
    assert.equal(later.evaluated, false, "an older tick after a newer one does nothing");
  });

  it("rolls the whole evaluation back when the transition hook fails", async () => {
    await insertReads(db, "org-a", server["org-a"]!, "sdc", [{ minute: 30, bucket: slow }]);
    const tick = T("08:31:00");
    await assert.rejects(
      evaluateOrganization(db.pool, "org-a", tick, async () => {
        throw new Error("outbox down");
      }),
      /outbox down/,
    );
    assert.equal((await db.pool.query("SELECT count(*)::int AS n FROM alert_history WHERE component = 'sdc'")).rows[0].n, 0);
    const retried = await evaluateOrganization(db.pool, "org-a", tick);
    assert.equal(retried.evaluated, true, "the tick is evaluated again after the rollback");
    assert.deepEqual((await db.pool.query("SELECT to_state FROM alert_history WHERE component = 'sdc'")).rows, [{ to_state: "firing" }]);
  });

  it("resolves the open alerts of a rule that is turned off", async () => {
    const open = (
      await db.pool.query("SELECT component, state FROM alert_states WHERE rule_id = $1 AND state <> 'ok' ORDER BY component", [ruleA])
    ).rows;
    assert.ok(open.length > 0, "the rule has open alerts before it is turned off");
    await db.pool.query("UPDATE alert_rules SET enabled = false WHERE id = $1", [ruleA]);
    const groups: AlertTransitionGroup[] = [];
    await evaluateOrganization(db.pool, "org-a", T("08:40:00"), async (_tx, group) => void groups.push(group));
    const resolved = (
      await db.pool.query(
        "SELECT component, from_state FROM alert_history WHERE rule_id = $1 AND at = '2026-11-20T08:40:00Z' AND to_state = 'ok' ORDER BY component",
        [ruleA],
      )
    ).rows;
    assert.deepEqual(
      resolved,
      open.map((o) => ({ component: o.component, from_state: o.state })),
    );
    assert.equal((await db.pool.query("SELECT count(*)::int AS n FROM alert_states WHERE rule_id = $1", [ruleA])).rows[0].n, 0);
    assert.equal(groups.find((g) => g.ruleId === ruleA)?.transitions.length, open.length);
  });

  it("fires the snapshot rules: agent offline, policy failed, eBPF lost", async () => {
    const org = "org-b";
    const id = server[org]!;
    // Org B's server sent eBPF latency data at 08:00-08:12 (above); its newest batch lists no capability.
    await db.pool.query(
      `INSERT INTO agents (org_id, server_id, credential_hash, telemetry_capabilities, telemetry_capabilities_at)
       VALUES ($1, $2, '\\x01', '{psi.pressure}', '2026-11-20T08:12:59Z')`,
      [org, id],
    );
    await db.pool.query(
      "INSERT INTO server_policy_status (org_id, server_id, status, message) VALUES ($1, $2, 'failed', 'budget too large')",
      [org, id],
    );
    const firing = async (key: string) =>
      (
        await db.pool.query(
          `SELECT h.to_state, h.value FROM alert_history h JOIN alert_rules r ON r.id = h.rule_id
          WHERE r.org_id = $1 AND r.default_key = $2 ORDER BY h.at`,
          [org, key],
        )
      ).rows.map((r) => `${r.to_state}:${r.value}`);
    // last_seen_at 08:12:59; offline above 180 s for 60 s: pending at 08:16:30 (211 s), firing at 08:17:30.
    for (const t of ["08:13:00", "08:16:30", "08:17:00", "08:17:30"]) await evaluateOrganization(db.pool, org, T(t));
    assert.deepEqual(await firing("agent_offline"), ["pending:211", "firing:271"]);
    assert.deepEqual(await firing("policy_failed"), ["firing:1"]);
    // eBPF lost is held 5 minutes: pending first, firing from 08:18:00 on (5 min after 08:13:00).
    assert.deepEqual(await firing("ebpf_lost"), ["pending:1"]);
    await db.pool.query("UPDATE servers SET last_seen_at = '2026-11-20T08:18:00Z' WHERE id = $1", [id]);
    await db.pool.query("UPDATE server_policy_status SET status = 'applied' WHERE server_id = $1", [id]);
    await evaluateOrganization(db.pool, org, T("08:18:30"));
    await evaluateOrganization(db.pool, org, T("08:19:30"));
    assert.deepEqual(
      await firing("agent_offline"),
      ["pending:211", "firing:271", "ok:90"],
      "resolved after 60 s clear (data 90 s old at 08:19:30, under 180 s)",
    );
    assert.deepEqual(await firing("policy_failed"), ["firing:1", "ok:0"]);
    assert.deepEqual(await firing("ebpf_lost"), ["pending:1", "firing:1"]);
  });

  it("previews a rule on the last 7 days of stored data, inside the organisation", async () => {
    const rule = {
      name: "preview",
      signal: "disk.read_latency",
      aggregation: "p99",
      comparison: ">",
      threshold: 100,
      windowSeconds: 60,
      forSeconds: 60,
      resolveSeconds: 90,
      noDataSeconds: 120,
      scope: { scope: "device", serverId: server["org-a"], device: "sda" },
      severity: "warning",
    };
    const client = await db.pool.connect();
    try {
      const preview = await previewRule(client, "org-a", rule, { now: T("09:00:00") });
      assert.ok(preview.previewable);
      // Replayed once a minute: pending 08:01, firing 08:02, clear from 08:07 (minute 6 fast),
      // resolved 08:09 (90 s clear), no data at 08:15 (data ended 08:13).
      assert.equal(preview.firings, 1);
      assert.equal(preview.subjectsFired, 1);
      assert.equal(preview.noDataEntries, 1);
      assert.equal(preview.firingSeconds, 7 * 60);
      // Org B's identical device is not in org A's preview, even scoped to the organisation.
      const wide = await previewRule(client, "org-a", { ...rule, scope: { scope: "organization" } }, { now: T("09:00:00") });
      assert.ok(wide.previewable);
      assert.ok(wide.bySubject.every((s) => s.serverId === server["org-a"]));
      await assert.rejects(previewRule(client, "org-a", { ...rule, aggregation: "last" }), /cannot be previewed: aggregation/);
      const snapshot = await previewRule(client, "org-a", {
        ...rule,
        signal: "policy.failed",
        aggregation: "last",
        scope: { scope: "organization" },
      });
      assert.equal(snapshot.previewable, false);
    } finally {
      client.release();
    }
  });
});
