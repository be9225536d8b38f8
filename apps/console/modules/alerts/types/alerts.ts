// What the alerts API answers and accepts. Rule and silence inputs are @spindle/domain's schemas
// (one source for the console, the worker and the preview); these are the console's views.
import { z } from "zod";
import { isUuid } from "@/lib/uuid";
import { alertSeverities, alertStates, type AlertScope, type AlertSeverity, type AlertState } from "@spindle/domain";

/** A figure with what it was measured from: the signal's unit and basis, or why there is none. */
export interface AlertValue {
  /** null: nothing was measured (no data), never shown as 0. */
  value: number | null;
  unit: string;
  comparison: string;
  threshold: number;
  /** "p99 over 5 min of 1-minute buckets; percentile of the window's merged log2 latency buckets (eBPF)…" */
  basis: string;
}

/** Who took a firing alert, when, and what they said. */
export interface AlertAcknowledgement {
  /** The member's name; "a removed user" once the account is gone. */
  by: string;
  at: string;
  note: string | null;
}

/** What a member may say when acknowledging: an optional note for the others on call. */
export const acknowledgeInputSchema = z
  .object({ note: z.string().trim().max(1000, "the note is at most 1,000 characters").optional() })
  .strict();
export type AcknowledgeInput = z.infer<typeof acknowledgeInputSchema>;

/** A rule × subject that is not ok now: pending, firing or without data. */
export interface OpenAlert {
  ruleId: string;
  ruleName: string;
  severity: AlertSeverity;
  state: Exclude<AlertState, "ok">;
  since: string;
  serverId: string;
  hostname: string;
  /** Device, scanned root, or "" for the server itself. */
  component: string;
  value: AlertValue;
  note: string;
  /** The silence covering it now, if any. */
  silence: { id: string; comment: string; endsAt: string } | null;
  /** A firing alert's id (its change to firing in history), which acknowledging names; null otherwise. */
  alertId: string | null;
  acknowledgement: AlertAcknowledgement | null;
}

export interface AlertHistoryEntry {
  id: string;
  at: string;
  ruleId: string | null;
  ruleName: string;
  severity: AlertSeverity;
  serverId: string;
  hostname: string;
  component: string;
  from: AlertState;
  to: AlertState;
  value: AlertValue;
  silenced: boolean;
  /** Set on a change to firing that a member acknowledged. */
  acknowledgement: AlertAcknowledgement | null;
}

export const historyQuerySchema = z
  .object({
    state: z.enum(alertStates).optional(),
    severity: z.enum(alertSeverities).optional(),
    ruleId: z.string().refine(isUuid, "the rule is a rule id").optional(),
    serverId: z.string().refine(isUuid, "the server is a server id").optional(),
    from: z.iso.datetime({ offset: true, message: "from is an ISO 8601 time with an offset" }).optional(),
    to: z.iso.datetime({ offset: true, message: "to is an ISO 8601 time with an offset" }).optional(),
    /** The id of the last entry of the previous page: the entries after it follow. */
    after: z.string().refine(isUuid, "after is a history entry id").optional(),
  })
  .strict()
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), {
    path: ["to"],
    message: "the range must end after it starts",
  });
export type HistoryQuery = z.infer<typeof historyQuerySchema>;

export interface AlertRuleSummary {
  id: string;
  defaultKey: string | null;
  name: string;
  enabled: boolean;
  signal: string;
  signalLabel: string;
  unit: string;
  aggregation: string;
  comparison: string;
  threshold: number;
  windowSeconds: number;
  forSeconds: number;
  resolveSeconds: number;
  noDataSeconds: number;
  scope: AlertScope;
  severity: AlertSeverity;
  note: string;
  updatedAt: string;
  /** Subjects of this rule not ok now. */
  openAlerts: number;
}

export const ruleEnabledSchema = z.object({ enabled: z.boolean() }).strict();

export type SilenceStatus = "active" | "upcoming" | "expired" | "cancelled";

export interface AlertSilenceSummary {
  id: string;
  ruleId: string | null;
  ruleName: string | null;
  scope: AlertScope;
  startsAt: string;
  endsAt: string;
  comment: string;
  createdBy: string | null;
  createdAt: string;
  cancelledAt: string | null;
  cancelledBy: string | null;
  status: SilenceStatus;
}

/** The rules and servers the silence form and the history filters offer. */
export interface SilenceTargets {
  rules: { id: string; name: string }[];
  servers: { id: string; hostname: string }[];
}
