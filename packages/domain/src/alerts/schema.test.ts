import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultAlertRules } from "./defaults.js";
import { alertRuleInputSchema, alertSilenceInputSchema, findSilence, type AlertSilence } from "./schema.js";
import { alertSignals, findAlertSignal } from "./signals.js";
import { findMetric } from "../metrics/catalogue.js";

const server = "00000000-0000-4000-8000-000000000001";

describe("alert rules", () => {
  it("every default rule is a valid rule on a known signal", () => {
    assert.equal(new Set(defaultAlertRules.map((r) => r.key)).size, defaultAlertRules.length, "default keys are unique");
    for (const rule of defaultAlertRules) {
      const { key: _key, ...fields } = rule;
      const parsed = alertRuleInputSchema.safeParse({ ...fields, scope: { scope: "organization" } });
      assert.ok(parsed.success, `${rule.key}: ${parsed.success ? "" : parsed.error.message}`);
      assert.match(rule.key, /^[a-z][a-z0-9_]{0,62}$/);
    }
  });

  it("every signal is computed from catalogue metrics", () => {
    for (const signal of alertSignals) for (const metric of signal.metrics) assert.ok(findMetric(metric), `${signal.id}: ${metric}`);
  });

  it("refuses an unknown signal, an aggregation the signal has not, and a device scope on a server signal", () => {
    const base = {
      name: "x",
      signal: "disk.read_latency",
      aggregation: "p99",
      comparison: ">",
      threshold: 1,
      windowSeconds: 300,
      forSeconds: 0,
      resolveSeconds: 0,
      noDataSeconds: 600,
      scope: { scope: "organization" },
      severity: "info",
    };
    assert.ok(alertRuleInputSchema.safeParse(base).success);
    const unknown = alertRuleInputSchema.safeParse({ ...base, signal: "disk.nonsense" });
    assert.match(unknown.error!.issues[0]!.message, /unknown signal "disk.nonsense"/);
    const aggregation = alertRuleInputSchema.safeParse({ ...base, aggregation: "last" });
    assert.match(aggregation.error!.issues[0]!.message, /disk.read_latency takes p50, p90, p95, p99, avg, not last/);
    const device = alertRuleInputSchema.safeParse({
      ...base,
      signal: "page_cache.hit_ratio",
      aggregation: "avg",
      scope: { scope: "device", serverId: server, device: "sda" },
    });
    assert.match(device.error!.issues[0]!.message, /cannot be scoped to one device/);
    assert.ok(alertRuleInputSchema.safeParse({ ...base, scope: { scope: "device", serverId: server, device: "sda" } }).success);
    assert.equal(alertRuleInputSchema.safeParse({ ...base, threshold: Infinity }).success, false);
    assert.equal(alertRuleInputSchema.safeParse({ ...base, windowSeconds: 30 }).success, false);
  });
});

describe("silences", () => {
  const silence = (over: Partial<AlertSilence>): AlertSilence => ({
    id: "s",
    ruleId: null,
    scope: { scope: "organization" },
    startsAt: new Date("2026-11-20T10:00:00Z"),
    endsAt: new Date("2026-11-20T11:00:00Z"),
    comment: "maintenance",
    cancelledAt: null,
    ...over,
  });
  const subject = { serverId: server, component: "sda", tags: ["db"] };
  const inside = new Date("2026-11-20T10:30:00Z");

  it("match by time, rule and scope", () => {
    assert.equal(findSilence([silence({})], "r1", subject, inside)?.id, "s");
    assert.equal(findSilence([silence({})], "r1", subject, new Date("2026-11-20T11:00:00Z")), undefined, "ends_at is exclusive");
    assert.equal(findSilence([silence({ ruleId: "r2" })], "r1", subject, inside), undefined);
    assert.equal(findSilence([silence({ scope: { scope: "tag", tag: "web" } })], "r1", subject, inside), undefined);
    assert.ok(findSilence([silence({ scope: { scope: "tag", tag: "db" } })], "r1", subject, inside));
    assert.ok(findSilence([silence({ scope: { scope: "device", serverId: server, device: "sda" } })], "r1", subject, inside));
    assert.equal(findSilence([silence({ scope: { scope: "device", serverId: server, device: "sdb" } })], "r1", subject, inside), undefined);
  });

  it("a cancelled silence stops at its cancellation", () => {
    const cancelled = silence({ cancelledAt: new Date("2026-11-20T10:20:00Z") });
    assert.ok(findSilence([cancelled], "r1", subject, new Date("2026-11-20T10:10:00Z")));
    assert.equal(findSilence([cancelled], "r1", subject, inside), undefined);
  });

  it("the input needs an end after the start and a comment", () => {
    const input = { scope: { scope: "organization" }, startsAt: "2026-11-20T10:00:00Z", endsAt: "2026-11-20T09:00:00Z", comment: "x" };
    assert.match(alertSilenceInputSchema.safeParse(input).error!.issues[0]!.message, /end after it starts/);
    assert.match(
      alertSilenceInputSchema.safeParse({ ...input, endsAt: "2026-11-20T12:00:00Z", comment: " " }).error!.issues[0]!.message,
      /say why/,
    );
    assert.equal(alertSilenceInputSchema.parse({ ...input, endsAt: "2026-11-20T12:00:00Z" }).ruleId, null);
  });
});

describe("signal lookup", () => {
  it("finds by id", () => assert.equal(findAlertSignal("disk.utilisation")?.unit, "%"));
});
