// What the recommendations API answers and accepts. The stored JSON is parsed with
// @spindle/domain's schemas on every read: a row that does not parse is an error, never half shown.
import type { Confidence, Evidence, Prediction, RealisedEffect, RecommendationKind } from "@spindle/domain";
import { z } from "zod";

export type RecommendationStatus = "open" | "applied" | "dismissed" | "snoozed";

export interface RecommendationView {
  id: string;
  serverId: string;
  hostname: string;
  kind: RecommendationKind;
  title: string;
  /** The exact step when no policy can make the change; "" otherwise. */
  steps: string;
  /** The policy change Apply saves, in words; null when Apply is not offered. */
  change: string | null;
  evidence: Evidence;
  /** The server page around the evidence's window. */
  evidenceHref: string;
  prediction: Prediction;
  confidence: Confidence;
  status: RecommendationStatus;
  snoozedUntil: string | null;
  statusChangedBy: string | null;
  statusChangedAt: string | null;
  applied: { policyId: string | null; policyName: string | null; version: number | null; at: string } | null;
  /** Null until the worker measured it, a window after the agent confirmed the change. */
  realised: RealisedEffect | null;
  firstSeenAt: string;
  refreshedAt: string;
}

export const snoozeInput = z.strictObject({
  days: z
    .number({ error: "Give the number of days to snooze, 1 to 90." })
    .int()
    .min(1, "Snooze for at least 1 day.")
    .max(90, "Snooze for at most 90 days."),
});
export type SnoozeInput = z.input<typeof snoozeInput>;
