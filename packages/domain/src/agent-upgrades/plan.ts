// How an agent upgrade goes out (docs/install.md, "Upgrades"): which servers, a canary, then
// cumulative percentages; each wave must install, soak (stay connected and healthy) and pass the
// staged rollouts' measured guards (p99 latency, and the servers not yet upgraded as a control)
// before the next is offered. Stored as JSON on the rollout and parsed on every read, so the console, the
// worker and the API agree on one shape; every field has a default.
import { z } from "zod";
import { rolloutGuardsSchema } from "../rollouts/plan.js";
import { isAgentVersion } from "./version.js";

const tagSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._:-]{0,62}$/, "A tag is 1–63 lowercase letters, digits, '.', '_', ':' or '-', starting with a letter or digit.");

export const agentVersionSchema = z.string().refine(isAgentVersion, "A version looks like 1.2.3 or 1.2.3-rc.1.");

export const agentUpgradeScopeSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("organization") }),
  z.strictObject({ kind: z.literal("tag"), tag: tagSchema }),
  z.strictObject({ kind: z.literal("servers"), serverIds: z.array(z.uuid()).min(1, "Pick at least one server.").max(10_000) }),
]);
export type AgentUpgradeScope = z.infer<typeof agentUpgradeScopeSchema>;

export const agentUpgradePlanSchema = z
  .strictObject({
    /** Servers upgraded first, alone (picked across tag groups). */
    canary: z.int().min(1).max(100).default(1),
    /** Cumulative share of the servers upgraded after each wave behind the canary; ends at 100. */
    wavePercents: z.array(z.int().min(1).max(100)).min(1).max(10).default([25, 100]),
    /** How long a wave's servers must stay connected on the new version before the next wave. */
    soakMinutes: z.int().min(0).max(1440).default(10),
    /** A server that has not reported on its offer for this long holds the rollout (offline?). */
    answerTimeoutMinutes: z.int().min(1).max(1440).default(15),
    /**
     * The thresholds of the measured guards each wave but the last must pass (the policy rollouts'
     * own, docs/policy.md "Rollouts"); read over the soak, or the guard-window floor if longer.
     */
    guards: rolloutGuardsSchema.prefault({}),
  })
  .superRefine((plan, context) => {
    const percents = plan.wavePercents;
    for (let i = 1; i < percents.length; i++) {
      if (percents[i]! <= percents[i - 1]!) {
        context.addIssue({ code: "custom", path: ["wavePercents", i], message: "Each wave covers more servers than the one before it." });
      }
    }
    if (percents[percents.length - 1] !== 100) {
      context.addIssue({
        code: "custom",
        path: ["wavePercents", percents.length - 1],
        message: "The last wave reaches 100 % of the servers.",
      });
    }
  });
export type AgentUpgradePlan = z.infer<typeof agentUpgradePlanSchema>;

export const agentUpgradeRequestSchema = z.strictObject({
  targetVersion: agentVersionSchema,
  scope: agentUpgradeScopeSchema,
  plan: agentUpgradePlanSchema.prefault({}),
});
export type AgentUpgradeRequest = z.infer<typeof agentUpgradeRequestSchema>;

export const agentVersionPinSchema = z.strictObject({
  version: agentVersionSchema,
  reason: z.string().trim().max(500).default(""),
});
