import { alertScopeSchema, alertSeverities, alertStates } from "@spindle/domain";
import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";

const severity = z.enum(alertSeverities);
const value = z.object({
  value: z.number().nullable().meta({ description: "null: nothing was measured (no data)" }),
  unit: z.string(),
  comparison: z.string(),
  threshold: z.number(),
  basis: z.string(),
});
export const acknowledgementSchema = z.object({ by: z.string(), at: isoDateTime, note: z.string().nullable() });

export const openAlertSchema = z.object({
  ruleId: z.string(),
  ruleName: z.string(),
  severity,
  state: z.enum(["pending", "firing", "no_data"]),
  since: isoDateTime,
  serverId: z.uuid(),
  hostname: z.string(),
  component: z.string(),
  value,
  note: z.string(),
  silence: z.object({ id: z.string(), comment: z.string(), endsAt: isoDateTime }).nullable(),
  alertId: z.string().nullable(),
  acknowledgement: acknowledgementSchema.nullable(),
});

export const alertHistorySchema = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      at: isoDateTime,
      ruleId: z.string().nullable(),
      ruleName: z.string(),
      severity,
      serverId: z.uuid(),
      hostname: z.string(),
      component: z.string(),
      from: z.enum(alertStates),
      to: z.enum(alertStates),
      value,
      silenced: z.boolean(),
      acknowledgement: acknowledgementSchema.nullable(),
    }),
  ),
  more: z.boolean(),
});

export const alertRuleSchema = z.object({
  id: z.string(),
  defaultKey: z.string().nullable(),
  name: z.string(),
  enabled: z.boolean(),
  signal: z.string(),
  signalLabel: z.string(),
  unit: z.string(),
  aggregation: z.string(),
  comparison: z.string(),
  threshold: z.number(),
  windowSeconds: z.number(),
  forSeconds: z.number(),
  resolveSeconds: z.number(),
  noDataSeconds: z.number(),
  scope: alertScopeSchema,
  severity,
  note: z.string(),
  updatedAt: isoDateTime,
  openAlerts: z.number().int(),
});

export const alertSilenceSchema = z.object({
  id: z.string(),
  ruleId: z.string().nullable(),
  ruleName: z.string().nullable(),
  scope: alertScopeSchema,
  startsAt: isoDateTime,
  endsAt: isoDateTime,
  comment: z.string(),
  createdBy: z.string().nullable(),
  createdAt: isoDateTime,
  cancelledAt: nullableDateTime,
  cancelledBy: z.string().nullable(),
  status: z.enum(["active", "upcoming", "expired", "cancelled"]),
});

export const rulePreviewSchema = z.discriminatedUnion("previewable", [
  z.object({ previewable: z.literal(false), reason: z.string() }).loose(),
  z
    .object({
      previewable: z.literal(true),
      from: z.string(),
      to: z.string(),
      firings: z.number(),
      subjects: z.number(),
      subjectsFired: z.number(),
      firingSeconds: z.number(),
      bySubject: z.array(z.object({ serverId: z.string() }).loose()).meta({ description: "The 20 subjects that fired most" }),
      hostnames: z.record(z.string(), z.string()),
    })
    .loose(),
]);
