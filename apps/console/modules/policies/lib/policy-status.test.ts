import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { computeEffectivePolicy } from "./effective-policy";
import { describePolicyStatus, type PolicyStatusRow } from "./policy-status";

const source = { scope: "organization" as const, tag: null, policyId: "p", policyName: "default", version: 1 };
const effective = computeEffectivePolicy([{ source, document: { schemaVersion: 1, telemetry: { ebpf: "off" } } }]);
const invalid = computeEffectivePolicy([{ source, document: { schemaVersion: 1, readCache: { enabled: true } } }]);
const current = effective.ok ? effective.hash : "";
const older = "1".repeat(64);
const at = new Date("2026-11-21T10:00:00Z");

function row(patch: Partial<PolicyStatusRow>): PolicyStatusRow {
  return { desiredVersionHash: current, appliedHash: null, status: "pending", message: "", reportedAt: at, appliedAt: null, ...patch };
}

describe("policy status", () => {
  it("is pending until the agent reports", () => {
    assert.equal(describePolicyStatus(effective, null).state, "pending");
    assert.equal(describePolicyStatus(effective, row({})).state, "pending");
  });

  it("is applied when the agent applied the policy the server should have now", () => {
    const status = describePolicyStatus(effective, row({ status: "applied", appliedHash: current, appliedAt: at }));
    assert.deepEqual(status, { state: "applied", desiredHash: current, appliedHash: current, appliedAt: at.toISOString(), reportedAt: at.toISOString(), message: "" });
  });

  it("is pending again once the policy changes after an APPLIED report", () => {
    const status = describePolicyStatus(effective, row({ status: "applied", desiredVersionHash: older, appliedHash: older, appliedAt: at }));
    assert.equal(status.state, "pending");
    assert.equal(status.appliedHash, older, "what the agent still runs is shown");
  });

  it("is failed with the agent's message for the current policy, pending for a newer one", () => {
    const failed = describePolicyStatus(effective, row({ status: "failed", message: "readCache: eBPF is not available on this kernel" }));
    assert.equal(failed.state, "failed");
    assert.equal(failed.message, "readCache: eBPF is not available on this kernel");
    const superseded = describePolicyStatus(effective, row({ status: "failed", desiredVersionHash: older, message: "old failure" }));
    assert.equal(superseded.state, "pending");
    assert.equal(superseded.message, "old failure");
  });

  it("is invalid when the layers do not merge into a valid policy", () => {
    const status = describePolicyStatus(invalid, row({ status: "applied", appliedHash: older }));
    assert.equal(status.state, "invalid");
    assert.equal(status.desiredHash, null);
  });
});
