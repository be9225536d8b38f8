// What the rollout API accepts (zod) and answers (types). The plan itself is @spindle/domain's
// rolloutPlanSchema, the one shape the worker reads back.
import { rolloutPlanSchema, type GuardReading, type RolloutPlan } from "@spindle/domain";
import { z } from "zod";

/**
 * How a change goes out. Omitted: as a rollout with the default plan when the organisation
 * requires rollouts and the change reaches more than one server through the organisation
 * default, a tag or several servers; otherwise at once, as before rollouts existed.
 * "now" skips the rollout: owners and admins only, confirmed, and audited.
 */
export const deliveryInput = z.discriminatedUnion(
  "mode",
  [
    z.strictObject({ mode: z.literal("rollout"), plan: rolloutPlanSchema.optional() }),
    z.strictObject({
      mode: z.literal("now"),
      confirm: z.literal(true, { error: "Applying at once skips the canary and the guards: send confirm: true to say you mean it." }),
    }),
  ],
  { error: () => 'delivery is { mode: "rollout", plan? } or { mode: "now", confirm: true }' },
);
export type DeliveryInput = z.input<typeof deliveryInput>;
export type Delivery = z.infer<typeof deliveryInput>;

export const rolloutStatuses = ["running", "paused", "completed", "aborted"] as const;
export type RolloutStatus = (typeof rolloutStatuses)[number];
export type WaveState = "pending" | "applying" | "watching" | "holding" | "passed" | "rolled_back";
export type RolloutServerState = "held" | "pushed" | "applied" | "failed" | "rolled_back";

/** What a change did: went out at once, or started a rollout. */
export type ChangeOutcome = { mode: "now"; reason: string } | { mode: "rollout"; rolloutId: string; servers: number; waves: number };

export interface RolloutSummary {
  id: string;
  kind: "policy_version" | "assignment" | "recommendation";
  title: string;
  status: RolloutStatus;
  statusReason: string;
  policyId: string | null;
  policyVersion: number | null;
  createdAt: string;
  createdBy: string | null;
  finishedAt: string | null;
  servers: number;
  /** Servers released and confirmed so far; rolled back ones are not counted. */
  applied: number;
  waves: { wave: number; label: string; state: WaveState; servers: number }[];
  /** The wave being released, watched or held; null when none is. */
  currentWave: number | null;
}

export interface RolloutServerView {
  serverId: string;
  hostname: string;
  state: RolloutServerState;
  releasedAt: string | null;
  appliedAt: string | null;
  rolledBackAt: string | null;
  rollbackConfirmedAt: string | null;
  failedMessage: string;
  /** What the agent runs now, as it last reported it. */
  reportedHash: string | null;
  targetHash: string | null;
}

export interface RolloutWaveView {
  wave: number;
  label: string;
  percent: number | null;
  attempt: number;
  state: WaveState;
  releasedAt: string | null;
  appliedAt: string | null;
  guardEndsAt: string | null;
  decidedAt: string | null;
  holdReason: string;
  readings: GuardReading[];
  readingsAt: string | null;
  overriddenBy: string | null;
  overriddenAt: string | null;
  servers: RolloutServerView[];
}

export interface RolloutEventView {
  id: string;
  at: string;
  kind: string;
  wave: number | null;
  message: string;
  actor: string | null;
}

export interface RolloutSlotView {
  scope: "organization" | "tag" | "server";
  tag: string | null;
  serverHostname: string | null;
  before: { policyId: string; policyName: string; version: number } | null;
  afterPolicyName: string | null;
}

export interface RolloutDetail extends RolloutSummary {
  plan: RolloutPlan;
  slots: RolloutSlotView[];
  waveDetails: RolloutWaveView[];
  timeline: RolloutEventView[];
}

export const overrideInput = z.strictObject({
  wave: z.int().min(0),
  reason: z.string().trim().min(3, "Say why the guard may be overridden (it goes in the audit log).").max(500),
});
export type OverrideInput = z.input<typeof overrideInput>;

export const rolloutSettingsInput = z.strictObject({ rolloutsRequired: z.boolean() });

export interface RolloutNotice {
  eventId: string;
  rolloutId: string;
  title: string;
  kind: "rollout.completed" | "rollout.rolled_back";
  message: string;
  at: string;
}
