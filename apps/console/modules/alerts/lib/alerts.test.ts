// The console's alert operations against a real database: rules (defaults and custom, edits,
// the switch, delete), open alerts with their value, basis and silence, history filters, the
// preview on stored aggregates, silences; every change audited, viewers refused, and another
// organisation's rows out of reach.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { AlertRuleInput } from "@spindle/domain";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import type { RoleName } from "@/modules/auth/lib/access";
import { listAuditLog } from "@/modules/audit/lib/list-audit-log";
import { acknowledgeAlert } from "./acknowledge";
import type { AlertActor } from "./authorise";
import { listAlertHistory } from "./list-alert-history";
import { listOpenAlerts } from "./list-open-alerts";
import { getRule, listRules } from "./list-rules";
import { previewRule } from "./preview-rule";
import { createRule, deleteRule, setRuleEnabled, updateRule } from "./save-rule";
import { cancelSilence, createSilence, listSilences } from "./silences";

const highReads: AlertRuleInput = {
  name: "Reads above 50/s",
  enabled: true,
  signal: "disk.read_iops",
  aggregation: "avg",
  comparison: ">",
  threshold: 50,
  windowSeconds: 300,
  forSeconds: 120,
  resolveSeconds: 120,
  noDataSeconds: 600,
  scope: { scope: "organization" },
  severity: "warning",
  note: "look at sda",
};

describe("alerts in the console", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: AlertActor;
  let viewer: AlertActor;
  let other: AlertActor;
  let serverId: string;
  let otherServerId: string;

  async function member(orgId: string, role: RoleName): Promise<AlertActor> {
    const suffix = randomUUID().slice(0, 8);
    const user = await db.prisma.user.create({ data: { id: `user-${suffix}`, name: `A ${role}`, email: `${role}-${suffix}@example.com` } });
    await db.prisma.member.create({ data: { id: `member-${suffix}`, organizationId: orgId, userId: user.id, role } });
    return { orgId, userId: user.id, role };
  }

  before(async () => {
    db = await createTestDatabase();
    const acme = await createOrganisation(db.prisma, "Acme");
    owner = { ...acme, role: "owner" };
    viewer = await member(acme.orgId, "viewer");
    const beta = await createOrganisation(db.prisma, "Beta");
    other = { ...beta, role: "owner" };
    serverId = (await createServer(db.prisma, acme.orgId, "db01", new Date())).id;
    otherServerId = (await createServer(db.prisma, beta.orgId, "beta01", new Date())).id;
  });
  after(() => db?.drop());

  it("creates, edits, switches and deletes a custom rule, each change in the audit log", async () => {
    const rule = await createRule(db, owner, highReads);
    assert.equal(rule.signalLabel, "Read IOPS");
    assert.equal(rule.unit, "ops/s");
    const edited = await updateRule(db, owner, rule.id, {
      ...highReads,
      threshold: 80,
      scope: { scope: "device", serverId, device: "sda" },
    });
    assert.equal(edited.threshold, 80);
    assert.deepEqual(edited.scope, { scope: "device", serverId, device: "sda" });
    assert.equal((await setRuleEnabled(db, owner, rule.id, false)).enabled, false);
    await setRuleEnabled(db, owner, rule.id, false); // unchanged: no second entry
    assert.deepEqual(await deleteRule(db, owner, rule.id), { deleted: rule.id });
    await assert.rejects(getRule(db, owner.orgId, rule.id), { status: 404 });
    const actions = (await listAuditLog(db, owner.orgId)).entries
      .map((e) => e.action)
      .filter((a) => a.startsWith("alert_rule."))
      .sort();
    assert.deepEqual(actions, ["alert_rule.created", "alert_rule.deleted", "alert_rule.disabled", "alert_rule.updated"]);
  });

  it("refuses a bad rule with the field that is wrong, and changes nothing", async () => {
    await assert.rejects(
      createRule(db, owner, { ...highReads, signal: "disk.nope" }),
      (e: { status: number; extra: { errors: { path: string }[] } }) => e.status === 400 && e.extra.errors.some((x) => x.path === "signal"),
    );
    await assert.rejects(createRule(db, owner, { ...highReads, aggregation: "p99" }), (e: { extra: { errors: { path: string }[] } }) =>
      e.extra.errors.some((x) => x.path === "aggregation"),
    );
    await assert.rejects(createRule(db, owner, { ...highReads, scope: { scope: "server", serverId: otherServerId } }), { status: 400 });
    assert.equal((await listRules(db, owner.orgId)).rules.length, 0);
  });

  it("keeps default rules: they can be switched off but not deleted", async () => {
    const { rows } = await db.pool.query(
      `INSERT INTO alert_rules (org_id, default_key, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity)
       VALUES ($1, 'agent_offline', 'Agent offline', 'agent.seconds_since_data', 'last', '>', 180, 300, 'organization', 'critical') RETURNING id`,
      [owner.orgId],
    );
    await assert.rejects(deleteRule(db, owner, rows[0].id), { status: 409 });
    assert.equal((await setRuleEnabled(db, owner, rows[0].id, false)).enabled, false);
    await setRuleEnabled(db, owner, rows[0].id, true);
  });

  it("lets viewers read but not change, and keeps other organisations' rules out of reach", async () => {
    const rule = await createRule(db, owner, highReads);
    await assert.rejects(createRule(db, viewer, highReads), { status: 403 });
    await assert.rejects(updateRule(db, viewer, rule.id, highReads), { status: 403 });
    await assert.rejects(setRuleEnabled(db, viewer, rule.id, false), { status: 403 });
    await assert.rejects(
      createSilence(db, viewer, {
        scope: { scope: "organization" },
        startsAt: new Date(),
        endsAt: new Date(Date.now() + 3600_000),
        comment: "x",
      }),
      { status: 403 },
    );
    assert.ok((await listRules(db, viewer.orgId)).rules.some((r) => r.id === rule.id));
    await assert.rejects(getRule(db, other.orgId, rule.id), { status: 404 });
    await assert.rejects(updateRule(db, other, rule.id, highReads), { status: 404 });
    await assert.rejects(deleteRule(db, other, rule.id), { status: 404 });
    assert.equal((await listRules(db, other.orgId)).rules.length, 0);
    await deleteRule(db, owner, rule.id);
  });

  it("shows firing alerts with value, unit, basis and note, and the silence that covers them", async () => {
    const rule = await createRule(db, owner, highReads);
    const since = new Date(Date.now() - 5 * 60_000);
    // As the worker writes them (apps/worker/src/alerts/writes.ts).
    await db.pool.query(
      `INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, condition_since, value, updated_at)
       VALUES ($1, $2, $3, 'sda', 'firing', $4, $4, 73.5, $4)`,
      [owner.orgId, rule.id, serverId, since],
    );
    await db.pool.query(
      `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
       VALUES ($1, $2, $3, 'warning', $4, 'sda', $5, 'pending', 'firing', 73.5, 50, '>')`,
      [owner.orgId, rule.id, rule.name, serverId, since],
    );
    const [open] = await listOpenAlerts(db, viewer.orgId);
    assert.equal(open?.state, "firing");
    assert.equal(open?.hostname, "db01");
    assert.equal(open?.component, "sda");
    assert.deepEqual(
      { value: open?.value.value, unit: open?.value.unit, threshold: open?.value.threshold },
      { value: 73.5, unit: "ops/s", threshold: 50 },
    );
    assert.match(open!.value.basis, /average over 5 min of 1-minute aggregates; completed reads/);
    assert.equal(open?.note, "look at sda");
    assert.equal(open?.silence, null);
    assert.deepEqual(await listOpenAlerts(db, other.orgId), []);

    const silence = await createSilence(db, owner, {
      ruleId: rule.id,
      scope: { scope: "server", serverId },
      startsAt: new Date(),
      endsAt: new Date(Date.now() + 3600_000),
      comment: "disk swap tonight",
    });
    assert.equal(silence.status, "active");
    assert.equal(silence.createdBy, "Acme owner");
    const [silenced] = await listOpenAlerts(db, owner.orgId, { serverId });
    assert.equal(silenced?.silence?.id, silence.id);
    assert.equal(silenced?.silence?.comment, "disk swap tonight");

    const cancelled = await cancelSilence(db, owner, silence.id);
    assert.equal(cancelled.status, "cancelled");
    await assert.rejects(cancelSilence(db, owner, silence.id), { status: 409 });
    assert.equal((await listOpenAlerts(db, owner.orgId))[0]?.silence, null);
    await assert.rejects(cancelSilence(db, other, silence.id), { status: 404 });

    // A rule turned off shows no open alerts (the worker resolves them on its next tick).
    await setRuleEnabled(db, owner, rule.id, false);
    assert.deepEqual(await listOpenAlerts(db, owner.orgId), []);
    await setRuleEnabled(db, owner, rule.id, true);
  });

  it("acknowledges a firing alert once, with who, when and the note; viewers and other organisations cannot; a resolve ends it", async () => {
    const rule = await createRule(db, owner, { ...highReads, name: "Acknowledge me" });
    const since = new Date(Date.now() - 3 * 60_000);
    await db.pool.query(
      `INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, condition_since, value, updated_at)
       VALUES ($1, $2, $3, 'sdc', 'firing', $4, $4, 90, $4)`,
      [owner.orgId, rule.id, serverId, since],
    );
    const {
      rows: [pendingRow],
    } = await db.pool.query(
      `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
       VALUES ($1, $2, $3, 'warning', $4, 'sdc', $5, 'ok', 'pending', 90, 50, '>') RETURNING id`,
      [owner.orgId, rule.id, rule.name, serverId, new Date(since.getTime() - 120_000)],
    );
    await db.pool.query(
      `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
       VALUES ($1, $2, $3, 'warning', $4, 'sdc', $5, 'pending', 'firing', 90, 50, '>')`,
      [owner.orgId, rule.id, rule.name, serverId, since],
    );
    const open = (await listOpenAlerts(db, owner.orgId)).find((a) => a.ruleId === rule.id)!;
    assert.ok(open.alertId, "a firing alert names its change to firing");
    assert.equal(open.acknowledgement, null);

    await assert.rejects(acknowledgeAlert(db, viewer, open.alertId!, {}), { status: 403 });
    await assert.rejects(
      acknowledgeAlert(db, other, open.alertId!, {}),
      { status: 404 },
      "another organisation's alert is not found by id",
    );
    await assert.rejects(acknowledgeAlert(db, owner, pendingRow.id, {}), { status: 409 }, "only a change to firing is an alert");
    await assert.rejects(
      acknowledgeAlert(db, owner, open.alertId!, { note: "x".repeat(1001) }),
      (e: { status: number; extra: { errors: { path: string }[] } }) => e.status === 400 && e.extra.errors.some((x) => x.path === "note"),
    );
    await assert.rejects(
      acknowledgeAlert(db, owner, open.alertId!, { note: "ok", who: "me" }),
      { status: 400 },
      "unknown fields are refused",
    );
    assert.equal(
      (await listOpenAlerts(db, owner.orgId)).find((a) => a.ruleId === rule.id)!.acknowledgement,
      null,
      "a refused acknowledgement changes nothing",
    );

    const ack = await acknowledgeAlert(db, owner, open.alertId!, { note: "  swapping the cable  " });
    assert.deepEqual({ by: ack.by, note: ack.note }, { by: "Acme owner", note: "swapping the cable" });
    await assert.rejects(
      acknowledgeAlert(db, owner, open.alertId!, {}),
      (e: { status: number; message: string }) => e.status === 409 && /Acme owner acknowledged/.test(e.message),
    );
    const shown = (await listOpenAlerts(db, viewer.orgId)).find((a) => a.ruleId === rule.id)!;
    assert.deepEqual(shown.acknowledgement, ack);
    const history = (await listAlertHistory(db, owner.orgId, { ruleId: rule.id })).entries;
    assert.deepEqual(history.find((e) => e.to === "firing")?.acknowledgement, ack);
    assert.equal(history.find((e) => e.to === "pending")?.acknowledgement, null);
    const audit = (await listAuditLog(db, owner.orgId)).entries.filter((e) => e.action === "alert.acknowledged");
    assert.equal(audit.length, 1);

    // The worker resolves it, and it fires again: a new alert, not acknowledged.
    const again = new Date();
    await db.pool.query(`UPDATE alert_states SET state = 'firing', state_since = $2 WHERE rule_id = $1`, [rule.id, again]);
    await db.pool.query(
      `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
       VALUES ($1, $2, $3, 'warning', $4, 'sdc', $5, 'firing', 'ok', 10, 50, '>'), ($1, $2, $3, 'warning', $4, 'sdc', $6, 'ok', 'firing', 95, 50, '>')`,
      [owner.orgId, rule.id, rule.name, serverId, new Date(again.getTime() - 60_000), again],
    );
    const refired = (await listOpenAlerts(db, owner.orgId)).find((a) => a.ruleId === rule.id)!;
    assert.equal(refired.acknowledgement, null);
    assert.notEqual(refired.alertId, open.alertId);
    await assert.rejects(acknowledgeAlert(db, owner, open.alertId!, {}), { status: 409 }, "the old firing is over");
    // Out of the way of the history test below, which counts the organisation's rows.
    await db.pool.query("DELETE FROM alert_history WHERE rule_id = $1", [rule.id]);
    await deleteRule(db, owner, rule.id);
  });

  it("filters history by state, severity, rule, server and time, and pages", async () => {
    const rule = (await listRules(db, owner.orgId)).rules.find((r) => r.name === highReads.name)!;
    const base = Date.now() - 3 * 3600_000;
    for (let i = 0; i < 105; i++) {
      await db.pool.query(
        `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
         VALUES ($1, $2, $3, 'warning', $4, 'sdb', $5, $6, $7, $8, 50, '>')`,
        [
          owner.orgId,
          rule.id,
          rule.name,
          serverId,
          new Date(base + i * 60_000),
          i % 2 ? "firing" : "pending",
          i % 2 ? "ok" : "firing",
          i % 2 ? null : 60,
        ],
      );
    }
    const firstPage = await listAlertHistory(db, owner.orgId, {});
    assert.equal(firstPage.entries.length, 100);
    assert.equal(firstPage.more, true);
    const secondPage = await listAlertHistory(db, owner.orgId, { after: firstPage.entries.at(-1)!.id });
    assert.equal(secondPage.entries.length, 6);
    assert.equal(new Set([...firstPage.entries, ...secondPage.entries].map((e) => e.id)).size, 106);
    const resolved = await listAlertHistory(db, owner.orgId, { state: "ok" });
    assert.ok(resolved.entries.every((e) => e.to === "ok" && e.value.value === null));
    assert.equal(resolved.entries.length, 52);
    assert.equal((await listAlertHistory(db, owner.orgId, { severity: "critical" })).entries.length, 0);
    assert.equal(
      (
        await listAlertHistory(db, owner.orgId, {
          serverId,
          ruleId: rule.id,
          from: new Date(base).toISOString(),
          to: new Date(base + 10 * 60_000).toISOString(),
        })
      ).entries.length,
      10,
    );
    assert.deepEqual((await listAlertHistory(db, other.orgId, {})).entries, []);
  });

  it("previews a rule on the stored 1-minute aggregates, and says so when a signal has no stored past", async () => {
    // Two hours of 100 reads/s on sda, ending five minutes ago.
    const now = new Date();
    for (let minute = 125; minute >= 5; minute--) {
      for (const second of [0, 10, 20, 30, 40, 50]) {
        await db.pool.query(
          `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
             read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
           VALUES ($1, $2, $3, 'sda', 10, 1000, 0, 4096000, 0, 0, 0, 500, 0, 1000, 1000, 0)`,
          [new Date(now.getTime() - minute * 60_000 + second * 1000), owner.orgId, serverId],
        );
      }
    }
    await rollUpAggregates(db.pool);
    const preview = await previewRule(db, owner.orgId, highReads, now);
    assert.equal(preview.previewable, true);
    if (!preview.previewable) return;
    assert.equal(preview.firings, 1, "one sustained condition fires once");
    assert.equal(preview.subjectsFired, 1);
    assert.equal(preview.hostnames[serverId], "db01");
    assert.match(preview.basis, /1-minute aggregates/);
    const quiet = await previewRule(db, owner.orgId, { ...highReads, threshold: 500 }, now);
    assert.equal(quiet.previewable && quiet.firings, 0);
    const other_ = await previewRule(db, other.orgId, highReads, now);
    assert.equal(other_.previewable && other_.subjects, 0, "another organisation's data is not replayed");
    const offline = await previewRule(db, owner.orgId, { ...highReads, signal: "agent.seconds_since_data", aggregation: "last" }, now);
    assert.equal(offline.previewable, false);
    assert.match(!offline.previewable ? offline.reason : "", /not a stored time series/);
    await assert.rejects(previewRule(db, owner.orgId, { ...highReads, windowSeconds: 5 }), { status: 400 });
  });

  it("names each firing alert's own change to firing across many servers, also when listing one server", async () => {
    // An organisation of its own, so the other tests' counts stay as they are.
    const fleet: AlertActor = { ...(await createOrganisation(db.prisma, "Fleet")), role: "owner" };
    const rule = await createRule(db, fleet, { ...highReads, name: "Fleet-wide" });
    const servers: string[] = [];
    for (const hostname of ["db01", "db02", "db03"]) servers.push((await createServer(db.prisma, fleet.orgId, hostname, new Date())).id);
    const ids = new Map<string, string>();
    for (const [i, id] of servers.entries()) {
      const since = new Date(Date.now() - (i + 1) * 60_000);
      await db.pool.query(
        `INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, condition_since, value, updated_at)
         VALUES ($1, $2, $3, 'sde', 'firing', $4, $4, 90, $4)`,
        [fleet.orgId, rule.id, id, since],
      );
      // An earlier firing of the same subject that resolved: never the current alert.
      await db.pool.query(
        `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
         VALUES ($1, $2, $3, 'warning', $4, 'sde', $5, 'pending', 'firing', 90, 50, '>')`,
        [fleet.orgId, rule.id, rule.name, id, new Date(since.getTime() - 3600_000)],
      );
      const {
        rows: [row],
      } = await db.pool.query(
        `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
         VALUES ($1, $2, $3, 'warning', $4, 'sde', $5, 'pending', 'firing', 90, 50, '>') RETURNING id`,
        [fleet.orgId, rule.id, rule.name, id, since],
      );
      ids.set(id, row.id);
    }
    await acknowledgeAlert(db, fleet, ids.get(servers[1]!)!, { note: "on it" });
    const open = (await listOpenAlerts(db, fleet.orgId)).filter((a) => a.ruleId === rule.id);
    assert.deepEqual(
      open.map((a) => [a.serverId, a.alertId, a.acknowledgement?.note ?? null]).sort(),
      servers.map((id) => [id, ids.get(id), id === servers[1] ? "on it" : null]).sort(),
    );
    const one = (await listOpenAlerts(db, fleet.orgId, { serverId: servers[2]! })).filter((a) => a.ruleId === rule.id);
    assert.deepEqual(
      one.map((a) => a.alertId),
      [ids.get(servers[2]!)],
    );
    assert.deepEqual(
      (await listOpenAlerts(db, other.orgId)).filter((a) => a.ruleId === rule.id),
      [],
      "another organisation sees none of them",
    );
  });

  it("keeps open alerts and silences within their organisation, also when asked for another's server", async () => {
    const left: AlertActor = { ...(await createOrganisation(db.prisma, "Left")), role: "owner" };
    const right: AlertActor = { ...(await createOrganisation(db.prisma, "Right")), role: "owner" };
    const leftServer = (await createServer(db.prisma, left.orgId, "left01", new Date())).id;
    const rightServer = (await createServer(db.prisma, right.orgId, "right01", new Date())).id;
    const since = new Date(Date.now() - 60_000);
    for (const [actor, server] of [
      [left, leftServer],
      [right, rightServer],
    ] as const) {
      const rule = await createRule(db, actor, { ...highReads, name: `Reads on ${actor.orgId}` });
      await db.pool.query(
        `INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, condition_since, value, updated_at)
         VALUES ($1, $2, $3, 'sda', 'firing', $4, $4, 90, $4)`,
        [actor.orgId, rule.id, server, since],
      );
      await db.pool.query(
        `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
         VALUES ($1, $2, $3, 'warning', $4, 'sda', $5, 'pending', 'firing', 90, 50, '>')`,
        [actor.orgId, rule.id, rule.name, server, since],
      );
    }
    // Right silences everything it has; Left's alert must not show it.
    await createSilence(db, right, {
      ruleId: null,
      scope: { scope: "organization" },
      startsAt: new Date(),
      endsAt: new Date(Date.now() + 3600_000),
      comment: "right only",
    });
    const [leftAlert, ...moreLeft] = await listOpenAlerts(db, left.orgId);
    assert.deepEqual(moreLeft, []);
    assert.equal(leftAlert?.serverId, leftServer);
    assert.equal(leftAlert?.silence, null, "another organisation's silence covers none of ours");
    assert.ok(leftAlert?.alertId);
    const [rightAlert] = await listOpenAlerts(db, right.orgId);
    assert.equal(rightAlert?.silence?.comment, "right only");
    assert.deepEqual(await listOpenAlerts(db, right.orgId, { serverId: leftServer }), [], "another organisation's server shows nothing");
    assert.deepEqual(
      (await listOpenAlerts(db, left.orgId, { serverId: leftServer })).map((a) => a.alertId),
      [leftAlert?.alertId],
    );
  });

  it("lists silences as active, upcoming and expired, and refuses one already over", async () => {
    const hour = 3600_000;
    const upcoming = await createSilence(db, owner, {
      ruleId: null,
      scope: { scope: "tag", tag: "db" },
      startsAt: new Date(Date.now() + hour),
      endsAt: new Date(Date.now() + 2 * hour),
      comment: "maintenance",
    });
    assert.equal(upcoming.status, "upcoming");
    await assert.rejects(
      createSilence(db, owner, {
        ruleId: null,
        scope: { scope: "organization" },
        startsAt: new Date(Date.now() - 2 * hour),
        endsAt: new Date(Date.now() - hour),
        comment: "late",
      }),
      { status: 400 },
    );
    await assert.rejects(
      createSilence(db, owner, {
        ruleId: null,
        scope: { scope: "organization" },
        startsAt: new Date(),
        endsAt: new Date(Date.now() - hour),
        comment: "backwards",
      }),
      { status: 400 },
    );
    const later = await listSilences(db, owner.orgId, new Date(Date.now() + 3 * hour));
    assert.equal(later.find((s) => s.id === upcoming.id)?.status, "expired");
    const statuses = (await listSilences(db, owner.orgId)).map((s) => s.status);
    assert.deepEqual(statuses, ["upcoming", "cancelled"]);
    assert.deepEqual(await listSilences(db, other.orgId), []);
    const actions = (await listAuditLog(db, owner.orgId)).entries.map((e) => e.action).filter((a) => a.startsWith("alert_silence."));
    assert.deepEqual(actions.sort(), ["alert_silence.cancelled", "alert_silence.created", "alert_silence.created"]);
  });
});
