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
    assert.deepEqual(status, {
      state: "applied",
      desiredHash: current,
      appliedHash: current,
      appliedAt: at.toISOString(),
      reportedAt: at.toISOString(),
      message: "",
      olderAgent: null,
    });
  });

  it("is pending again once the policy changes after an APPLIED report", () => {
    const status = describePolicyStatus(
      effective,
      row({ status: "applied", desiredVersionHash: older, appliedHash: older, appliedAt: at }),
    );
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

  // The text an agent built before readCache.holdoutPercent answers with (its decoder's message,
  // pinned by agent/internal/policy TestUnknownFieldMessageIsTheConsolesContract).
  const olderAgentRefusal = (path: string) =>
    `invalid policy: ${path}: is not a policy field: check its spelling and section against the policy reference`;

  it("says the agent is older than the policy when it refuses a field the policy includes by default", () => {
    const status = describePolicyStatus(
      effective,
      row({ status: "failed", message: olderAgentRefusal("readCache.holdoutPercent") }),
      "0.1.0",
    );
    assert.equal(status.state, "failed");
    assert.deepEqual(status.olderAgent, { agentVersion: "0.1.0", fields: ["readCache.holdoutPercent"] });
    const two = describePolicyStatus(
      effective,
      row({
        status: "failed",
        message: `${olderAgentRefusal("readCache.holdoutPercent")}; telemetry.ebpf: is not a policy field: check its spelling`,
      }),
      "0.1.0",
    );
    assert.deepEqual(two.olderAgent?.fields, ["readCache.holdoutPercent", "telemetry.ebpf"]);
  });

  it("does not blame the agent's age for other refusals, or for fields the policy does not have", () => {
    for (const message of [
      "readCache: eBPF is not available on this kernel",
      olderAgentRefusal("readCache.notAField"),
      "invalid policy: readCache.budgetBytes: must be at least 16 MiB (16777216)",
    ]) {
      assert.equal(describePolicyStatus(effective, row({ status: "failed", message }), "0.1.0").olderAgent, null, message);
    }
    const superseded = describePolicyStatus(
      effective,
      row({ status: "failed", desiredVersionHash: older, message: olderAgentRefusal("readCache.holdoutPercent") }),
    );
    assert.equal(superseded.olderAgent, null, "a refusal of an older policy is history: the new one is pending");
  });
});
