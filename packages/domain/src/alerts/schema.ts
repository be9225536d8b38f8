// The shapes of alert rules and silences at every boundary (console API, worker, preview),
// with the checks the database cannot make: the signal exists, the aggregation suits it, a
// device scope only on a per-device signal.
import { z } from "zod";
import { alertAggregations, findAlertSignal } from "./signals.js";

export const alertComparisons = [">", ">=", "<", "<="] as const;
export type AlertComparison = (typeof alertComparisons)[number];
export const alertSeverities = ["info", "warning", "critical"] as const;
export type AlertSeverity = (typeof alertSeverities)[number];
export const alertScopes = ["organization", "tag", "server", "device"] as const;
export type AlertScopeKind = (typeof alertScopes)[number];
export const alertStates = ["ok", "pending", "firing", "no_data"] as const;
export type AlertState = (typeof alertStates)[number];

const tagSchema = z.string().regex(/^[a-z0-9][a-z0-9._:-]{0,62}$/, "a tag is lowercase letters, digits and . _ : -, up to 63 characters");
const uuidSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "a server id is a UUID");
const deviceSchema = z.string().min(1).max(200);

/** Which subjects a rule or silence covers. */
export const alertScopeSchema = z.discriminatedUnion("scope", [
  z.object({ scope: z.literal("organization") }).strict(),
  z.object({ scope: z.literal("tag"), tag: tagSchema }).strict(),
  z.object({ scope: z.literal("server"), serverId: uuidSchema }).strict(),
  z.object({ scope: z.literal("device"), serverId: uuidSchema, device: deviceSchema }).strict(),
]);
export type AlertScope = z.infer<typeof alertScopeSchema>;

const seconds = (min: number, max: number, what: string) =>
  z.number().int(`${what} is a whole number of seconds`).min(min, `${what} is at least ${min} s`).max(max, `${what} is at most ${max} s`);

/** A rule's condition and timing: what a custom rule sets and a default rule ships with. */
export const alertConditionSchema = z.object({
  signal: z.string().min(1),
  aggregation: z.enum(alertAggregations),
  comparison: z.enum(alertComparisons),
  threshold: z.number().finite("the threshold is a finite number"),
  windowSeconds: seconds(60, 604_800, "the window"),
  forSeconds: seconds(0, 86_400, "the for-duration"),
  resolveSeconds: seconds(0, 86_400, "the resolve duration"),
  noDataSeconds: seconds(60, 604_800, "the no-data duration"),
});
export type AlertCondition = z.infer<typeof alertConditionSchema>;

/** A rule as a user saves it (console API) and as the worker evaluates it. */
export const alertRuleInputSchema = alertConditionSchema
  .extend({
    name: z.string().trim().min(1, "a rule needs a name").max(120),
    enabled: z.boolean().default(true),
    scope: alertScopeSchema,
    severity: z.enum(alertSeverities),
    note: z.string().max(4000).default(""),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const signal = findAlertSignal(rule.signal);
    if (!signal) {
      ctx.addIssue({
        code: "custom",
        path: ["signal"],
        message: `unknown signal ${JSON.stringify(rule.signal)}: pick one of the alert signals (docs/alerts.md)`,
      });
      return;
    }
    if (!signal.aggregations.includes(rule.aggregation)) {
      ctx.addIssue({
        code: "custom",
        path: ["aggregation"],
        message: `${signal.id} takes ${signal.aggregations.join(", ")}, not ${rule.aggregation}`,
      });
    }
    if (rule.scope.scope === "device" && signal.level !== "device") {
      ctx.addIssue({
        code: "custom",
        path: ["scope"],
        message: `${signal.id} is measured per ${signal.level}, so a rule on it cannot be scoped to one device: scope it to the server`,
      });
    }
  });
export type AlertRuleInput = z.infer<typeof alertRuleInputSchema>;

/** A stored rule: the input plus identity. */
export interface AlertRule extends AlertRuleInput {
  id: string;
  orgId: string;
  defaultKey: string | null;
}

/** A silence or maintenance window as a user sets it. */
export const alertSilenceInputSchema = z
  .object({
    ruleId: uuidSchema.nullable().default(null),
    scope: alertScopeSchema,
    startsAt: z.coerce.date(),
    endsAt: z.coerce.date(),
    comment: z.string().trim().min(1, "say why the alerts are silenced").max(1000),
  })
  .strict()
  .refine((s) => s.endsAt.getTime() > s.startsAt.getTime(), { path: ["endsAt"], message: "a silence must end after it starts" });
export type AlertSilenceInput = z.infer<typeof alertSilenceInputSchema>;

export interface AlertSilence extends AlertSilenceInput {
  id: string;
  cancelledAt: Date | null;
}

/** What a rule's state is kept for. component: device, scanned root, or "" for the server. */
export interface AlertSubject {
  serverId: string;
  component: string;
  tags: readonly string[];
}

/** Whether a scope covers a subject. A device scope covers only that component of that server. */
export function scopeCovers(scope: AlertScope, subject: AlertSubject): boolean {
  switch (scope.scope) {
    case "organization":
      return true;
    case "tag":
      return subject.tags.includes(scope.tag);
    case "server":
      return subject.serverId === scope.serverId;
    case "device":
      return subject.serverId === scope.serverId && subject.component === scope.device;
  }
}

/** The first silence active at `at` that covers this rule and subject, if any. */
export function findSilence(silences: readonly AlertSilence[], ruleId: string, subject: AlertSubject, at: Date): AlertSilence | undefined {
  const t = at.getTime();
  return silences.find(
    (s) =>
      (s.cancelledAt === null || t < s.cancelledAt.getTime()) &&
      s.startsAt.getTime() <= t &&
      t < s.endsAt.getTime() &&
      (s.ruleId === null || s.ruleId === ruleId) &&
      scopeCovers(s.scope, subject),
  );
}
