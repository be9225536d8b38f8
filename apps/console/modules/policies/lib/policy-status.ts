import type { EffectivePolicy, PolicyStatusView } from "../types/policy";
import { fieldsUnknownToAgent } from "./older-agent";

/** A row of server_policy_status as the gateway writes it (docs/policy.md, "Policy status"). */
export interface PolicyStatusRow {
  desiredVersionHash: string | null;
  appliedHash: string | null;
  status: string;
  message: string;
  reportedAt: Date | null;
  appliedAt: Date | null;
}

/**
 * What to tell the user about a server's policy. The agent's report is judged against the policy
 * the server should have now: an APPLIED report of an older policy means the new one is still
 * pending, and a failure concerns the policy it was reported for. `agentVersion` is what the
 * server's agent last reported, named when the agent refused fields it is too old to know.
 */
export function describePolicyStatus(effective: EffectivePolicy, row: PolicyStatusRow | null, agentVersion = ""): PolicyStatusView {
  const desiredHash = effective.ok ? effective.hash : null;
  const base = {
    desiredHash,
    appliedHash: row?.appliedHash ?? null,
    appliedAt: row?.appliedAt?.toISOString() ?? null,
    reportedAt: row?.reportedAt?.toISOString() ?? null,
    message: row?.status === "failed" ? row.message : "",
    olderAgent: null,
  };
  if (!effective.ok) return { ...base, state: "invalid" };
  if (!row) return { ...base, state: "pending" };
  if (row.status === "applied" && row.appliedHash === desiredHash) return { ...base, state: "applied" };
  if (row.status === "failed" && (row.desiredVersionHash === null || row.desiredVersionHash === desiredHash)) {
    const fields = fieldsUnknownToAgent(effective, row.message);
    return { ...base, state: "failed", olderAgent: fields.length > 0 ? { agentVersion, fields } : null };
  }
  return { ...base, state: "pending" };
}
