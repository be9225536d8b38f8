import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alertRuleInputSchema } from "@spindle/domain";
import { formToRuleInput, newRuleForm, ruleToForm, withSignal } from "./rule-form";

describe("the rule editor's form", () => {
  it("turns minutes into seconds and a filled form into a valid rule", () => {
    const form = { ...newRuleForm(), name: "Slow reads", threshold: "20", forMinutes: "0.5" };
    const input = alertRuleInputSchema.parse(formToRuleInput(form));
    assert.equal(input.windowSeconds, 300);
    assert.equal(input.forSeconds, 30);
    assert.equal(input.threshold, 20);
  });

  it("reports a blank threshold as missing, not as 0", () => {
    const result = alertRuleInputSchema.safeParse(formToRuleInput({ ...newRuleForm(), name: "x" }));
    assert.equal(result.success, false);
    assert.ok(result.error!.issues.some((i) => i.path.join(".") === "threshold"));
  });

  it("round-trips a stored rule", () => {
    const form = ruleToForm({
      id: "r",
      defaultKey: null,
      name: "Busy",
      enabled: false,
      signal: "disk.utilisation",
      signalLabel: "",
      unit: "%",
      aggregation: "max",
      comparison: ">=",
      threshold: 95,
      windowSeconds: 600,
      forSeconds: 900,
      resolveSeconds: 60,
      noDataSeconds: 1200,
      scope: { scope: "device", serverId: "0b8c9a52-0000-4000-8000-000000000001", device: "nvme0n1" },
      severity: "critical",
      note: "n",
      updatedAt: "",
      openAlerts: 0,
    });
    assert.deepEqual(formToRuleInput(form).scope, { scope: "device", serverId: "0b8c9a52-0000-4000-8000-000000000001", device: "nvme0n1" });
    assert.equal(formToRuleInput(form).forSeconds, 900);
  });

  it("keeps the aggregation and scope valid when the signal changes", () => {
    const form = { ...newRuleForm(), aggregation: "max" as const, scopeKind: "device" as const };
    const latency = withSignal(form, "disk.read_latency");
    assert.equal(latency.aggregation, "p50");
    const pageCache = withSignal(form, "page_cache.hit_ratio");
    assert.equal(pageCache.scopeKind, "server");
  });
});
