import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultRolloutPlan, describeRolloutPlan, rolloutPlanSchema } from "./plan.js";

describe("rollout plan", () => {
  it("defaults to one canary across tags, then 10, 50, 100 %, 15 min each, with every guard set", () => {
    const plan = defaultRolloutPlan();
    assert.deepEqual(plan.canary, { kind: "spread", count: 1 });
    assert.deepEqual(plan.wavePercents, [10, 50, 100]);
    assert.equal(plan.guardWindowMinutes, 15);
    assert.equal(plan.guards.offlineSeconds, 300);
    assert.equal(plan.guards.backoffIncrease, 3);
    assert.equal(plan.guards.p99IncreasePercent, 50);
    assert.equal(plan.guards.comparative.minimumControls, 3);
    assert.equal(plan.guards.comparative.confidence, 0.95);
    assert.equal(describeRolloutPlan(plan), "Canary: 1 server across tags, then 10 % → 50 % → 100 %; 15 min guard window each");
  });

  it("keeps a per-rollout threshold and defaults the rest", () => {
    const plan = rolloutPlanSchema.parse({ guards: { p99IncreasePercent: 25, comparative: { minimumControls: 2 } } });
    assert.equal(plan.guards.p99IncreasePercent, 25);
    assert.equal(plan.guards.comparative.minimumControls, 2);
    assert.equal(plan.guards.comparative.relativeTolerancePercent, 10);
    assert.equal(plan.guards.backoffIncrease, 3);
  });

  it("refuses a guard window under five minutes, waves that do not grow or do not reach 100 %, and unknown fields", () => {
    const problems = (input: unknown) => {
      const result = rolloutPlanSchema.safeParse(input);
      assert.equal(result.success, false);
      return result.error!.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    };
    assert.match(problems({ guardWindowMinutes: 4 })[0]!, /guardWindowMinutes: A guard window is at least 5 minutes/);
    assert.match(problems({ wavePercents: [50, 90] })[0]!, /wavePercents: The last wave must reach 100 %/);
    assert.match(problems({ wavePercents: [50, 50, 100] })[0]!, /wavePercents.1: Each wave must reach more servers/);
    assert.match(problems({ canary: { kind: "tag", tag: "Not A Tag" } })[0]!, /canary.tag: A tag is/);
    assert.match(problems({ guards: { surprise: 1 } })[0]!, /guards/);
  });
});
