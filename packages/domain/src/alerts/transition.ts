// The record of a state change, as the worker hands it to whatever notifies (the notification
// outbox). One AlertTransition per state change of a rule × subject; one AlertTransitionGroup per
// rule and evaluation, so a rule that fires on forty devices at once is one notification.
import type { AlertComparison, AlertScope, AlertSeverity, AlertState } from "./schema.js";
import type { AlertTransitionKind } from "./state-machine.js";

export interface AlertTransition {
  /** alert_history.id: stable, so a notification keyed on it is sent once. */
  historyId: string;
  serverId: string;
  /** Device, scanned root, or "" for the server itself. */
  component: string;
  from: AlertState;
  to: AlertState;
  kind: AlertTransitionKind;
  /** The value compared with the threshold; null when nothing was measured (no data, idle). */
  value: number | null;
  /** The silence that covered this subject at the time; notify nobody when set. */
  silencedBy: string | null;
}

export interface AlertTransitionGroup {
  orgId: string;
  ruleId: string;
  ruleName: string;
  signal: string;
  severity: AlertSeverity;
  scope: AlertScope;
  comparison: AlertComparison;
  threshold: number;
  /** The signal's unit, and what the value is measured from (aggregation, window, signal basis). */
  unit: string;
  basis: string;
  /** The evaluation tick: alert_history.at of every transition in the group. */
  at: Date;
  /** The responder's note from the rule. */
  note: string;
  transitions: AlertTransition[];
}
