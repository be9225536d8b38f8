import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { eventKinds } from "./event-kinds";

describe("how a chart names a rollback", () => {
  it("says which rollout rolled the server back and why, and links to that rollout", () => {
    const details = {
      rolloutId: "r-1",
      title: "Policy “db” version 2",
      reason: "Worse than the servers not yet changed",
      hash: "a".repeat(64),
    };
    const kind = eventKinds["policy.rolled_back"]!;
    assert.equal(
      kind.describe(details),
      "The rollout “Policy “db” version 2” rolled this server back to policy aaaaaaaaaaaa: Worse than the servers not yet changed.",
    );
    assert.equal(kind.href?.(details), "/rollouts/r-1");
    assert.equal(kind.href?.({ layers: [{ policyId: "p-1" }] }), "/policies/p-1", "without a rollout, the policy in force");
  });
});
