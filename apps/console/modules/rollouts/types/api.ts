// The rollout API's answers as zod schemas, for the OpenAPI document (lib/openapi) and its
// contract test; the TypeScript shapes are types/rollout.ts.
import { guardReadingSchema, rolloutPlanSchema } from "@spindle/domain";
import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";
import { rolloutStatuses } from "./rollout";

export const changeOutcomeSchema = z
  .discriminatedUnion("mode", [
    z.object({ mode: z.literal("rollout"), rolloutId: z.uuid(), servers: z.number().int(), waves: z.number().int() }),
    z.object({ mode: z.literal("now"), reason: z.string() }),
  ])
  .meta({ description: "How the change went out: a rollout started (follow it at /rollouts/{rolloutId}), or at once, with why" });

const waveStates = z.enum(["pending", "applying", "watching", "holding", "passed", "rolled_back"]);

export const rolloutSummarySchema = z.object({
  id: z.uuid(),
  kind: z.enum(["policy_version", "assignment", "recommendation"]),
  title: z.string(),
  status: z.enum(rolloutStatuses),
  statusReason: z.string(),
  policyId: z.string().nullable(),
  policyVersion: z.number().int().nullable(),
  createdAt: isoDateTime,
  createdBy: z.string().nullable(),
  finishedAt: nullableDateTime,
  servers: z.number().int(),
  applied: z.number().int(),
  waves: z.array(z.object({ wave: z.number().int(), label: z.string(), state: waveStates, servers: z.number().int() })),
  currentWave: z.number().int().nullable(),
});

const serverView = z.object({
  serverId: z.uuid(),
  hostname: z.string(),
  state: z.enum(["held", "pushed", "applied", "failed", "rolled_back"]),
  releasedAt: nullableDateTime,
  appliedAt: nullableDateTime,
  rolledBackAt: nullableDateTime,
  rollbackConfirmedAt: nullableDateTime,
  failedMessage: z.string(),
  reportedHash: z.string().nullable(),
  targetHash: z.string().nullable(),
});

export const rolloutDetailSchema = rolloutSummarySchema.extend({
  plan: rolloutPlanSchema,
  slots: z.array(
    z.object({
      scope: z.enum(["organization", "tag", "server"]),
      tag: z.string().nullable(),
      serverHostname: z.string().nullable(),
      before: z.object({ policyId: z.string(), policyName: z.string(), version: z.number().int() }).nullable(),
      afterPolicyName: z.string().nullable(),
    }),
  ),
  waveDetails: z.array(
    z.object({
      wave: z.number().int(),
      label: z.string(),
      percent: z.number().int().nullable(),
      attempt: z.number().int(),
      state: waveStates,
      releasedAt: nullableDateTime,
      appliedAt: nullableDateTime,
      guardEndsAt: nullableDateTime,
      decidedAt: nullableDateTime,
      holdReason: z.string(),
      readings: z.array(guardReadingSchema),
      readingsAt: nullableDateTime,
      overriddenBy: z.string().nullable(),
      overriddenAt: nullableDateTime,
      servers: z.array(serverView),
    }),
  ),
  timeline: z.array(
    z.object({
      id: z.string(),
      at: isoDateTime,
      kind: z.string(),
      wave: z.number().int().nullable(),
      message: z.string(),
      actor: z.string().nullable(),
    }),
  ),
});

export const rolloutNoticeSchema = z.object({
  eventId: z.string(),
  rolloutId: z.uuid(),
  title: z.string(),
  kind: z.enum(["rollout.completed", "rollout.rolled_back"]),
  message: z.string(),
  at: isoDateTime,
});
