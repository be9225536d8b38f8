// How a rollout goes out (issue 23, docs/policy.md "Rollouts"): which servers form the canary,
// the percentage waves after it, how long each wave is watched, and every guard's threshold.
// Stored as JSON on the rollout and parsed on every read, so the console, the worker and the
// API agree on one shape; every field has a default, so `{}` is the organisation's default plan.
import { z } from "zod";

/** Tags as the policies module stores them (lowercase, digits, `.`, `_`, `:`, `-`). */
const tagSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._:-]{0,62}$/, "A tag is 1–63 lowercase letters, digits, '.', '_', ':' or '-', starting with a letter or digit.");

/** The product's floor for a guard window: shorter windows hold too little telemetry to judge. */
export const minimumGuardWindowMinutes = 5;

export const rolloutCanarySchema = z.discriminatedUnion("kind", [
  /** Servers the user picked by hand. */
  z.strictObject({ kind: z.literal("servers"), serverIds: z.array(z.uuid()).min(1, "Pick at least one canary server.").max(100) }),
  /** Every affected server carrying a tag (a "canary" tag kept on a few representative servers). */
  z.strictObject({ kind: z.literal("tag"), tag: tagSchema }),
  /** N servers picked across the tag groups, so the canary is not all one kind of server. */
  z.strictObject({ kind: z.literal("spread"), count: z.int().min(1).max(100) }),
]);
export type RolloutCanary = z.infer<typeof rolloutCanarySchema>;

export const comparativeGuardSchema = z.strictObject({
  /** Confidence of the family of metrics (Holm-corrected), so five metrics do not trip five times as often. */
  confidence: z.number().min(0.8).max(0.999).default(0.95),
  /** A metric trips only when it got worse by more than this, relative to the control (a log-ratio shown as %). */
  relativeTolerancePercent: z.number().min(0).max(100).default(10),
  /** The same for ratios judged on the absolute scale (one of the servers had a value of 0): in the ratio's unit. */
  absoluteTolerance: z.number().min(0).max(1).default(0.02),
  /** Servers not yet changed needed for a comparison; fewer holds the wave ("not enough data"). */
  minimumControls: z.int().min(1).max(1000).default(3),
  /** Each window of each server needs at least this many I/Os (reads, accesses) to count. */
  minimumDenominator: z.int().min(1).max(1_000_000_000).default(100),
});

export const rolloutGuardsSchema = z.strictObject({
  /** A wave server whose agent has sent nothing for this long trips the "agent offline" guard. */
  offlineSeconds: z.int().min(30).max(86_400).default(300),
  /** Servers that have not confirmed the policy this long after the wave went out hold it. */
  applyTimeoutMinutes: z.int().min(1).max(1440).default(15),
  /** Read-cache backoffs (memory pressure) a wave server may add over the equally long window before. */
  backoffIncrease: z.int().min(1).max(1_000_000).default(3),
  /** p99 read or write latency of a device may rise by at most this much (judged on bucket edges). */
  p99IncreasePercent: z.number().min(10).max(10_000).default(50),
  /** A device's p99 is read only with at least this many I/Os in each window. */
  latencyMinimumOperations: z.int().min(10).max(1_000_000).default(100),
  comparative: comparativeGuardSchema.prefault({}),
});
export type RolloutGuards = z.infer<typeof rolloutGuardsSchema>;

export const rolloutPlanSchema = z
  .strictObject({
    canary: rolloutCanarySchema.default({ kind: "spread", count: 1 }),
    /** Cumulative share of the affected servers changed after each wave behind the canary; ends at 100. */
    wavePercents: z.array(z.int().min(1).max(100)).min(1).max(10).default([10, 50, 100]),
    guardWindowMinutes: z
      .int()
      .min(minimumGuardWindowMinutes, `A guard window is at least ${minimumGuardWindowMinutes} minutes.`)
      .max(1440)
      .default(15),
    guards: rolloutGuardsSchema.prefault({}),
  })
  .superRefine((plan, context) => {
    const percents = plan.wavePercents;
    if (percents.at(-1) !== 100) {
      context.addIssue({ code: "custom", path: ["wavePercents"], message: "The last wave must reach 100 % of the servers." });
    }
    for (let i = 1; i < percents.length; i++) {
      if (percents[i]! <= percents[i - 1]!) {
        context.addIssue({
          code: "custom",
          path: ["wavePercents", i],
          message: "Each wave must reach more servers than the one before (10, 50, 100).",
        });
      }
    }
  });
export type RolloutPlan = z.infer<typeof rolloutPlanSchema>;
export type RolloutPlanInput = z.input<typeof rolloutPlanSchema>;

/** The plan every organisation starts from: one canary picked across tags, then 10 %, 50 %, 100 %, 15 minutes each. */
export function defaultRolloutPlan(): RolloutPlan {
  return rolloutPlanSchema.parse({});
}

/** A stored plan, parsed with today's defaults for anything it leaves out. */
export function parseRolloutPlan(value: unknown): RolloutPlan {
  return rolloutPlanSchema.parse(value ?? {});
}

/** "Canary: 1 server across tags, then 10 % → 50 % → 100 %, 15 min each". */
export function describeRolloutPlan(plan: RolloutPlan): string {
  const canary =
    plan.canary.kind === "servers"
      ? `${plan.canary.serverIds.length} chosen server${plan.canary.serverIds.length === 1 ? "" : "s"}`
      : plan.canary.kind === "tag"
        ? `servers tagged ${plan.canary.tag}`
        : `${plan.canary.count} server${plan.canary.count === 1 ? "" : "s"} across tags`;
  return `Canary: ${canary}, then ${plan.wavePercents.map((p) => `${p} %`).join(" → ")}; ${plan.guardWindowMinutes} min guard window each`;
}
