// The rule editor's form state (strings, as inputs hold them, durations in minutes) and its
// conversion to the rule input the API validates with @spindle/domain's schema.
import { findAlertSignal, type AlertAggregation, type AlertComparison, type AlertScope, type AlertSeverity } from "@spindle/domain";
import type { AlertRuleSummary } from "../types/alerts";

export interface RuleForm {
  name: string;
  enabled: boolean;
  signal: string;
  aggregation: AlertAggregation;
  comparison: AlertComparison;
  threshold: string;
  windowMinutes: string;
  forMinutes: string;
  resolveMinutes: string;
  noDataMinutes: string;
  scopeKind: AlertScope["scope"];
  tag: string;
  serverId: string;
  device: string;
  severity: AlertSeverity;
  note: string;
}

const minutes = (seconds: number) => String(seconds / 60);

export function newRuleForm(): RuleForm {
  return {
    name: "",
    enabled: true,
    signal: "disk.read_latency_avg",
    aggregation: "avg",
    comparison: ">",
    threshold: "",
    windowMinutes: "5",
    forMinutes: "5",
    resolveMinutes: "5",
    noDataMinutes: "10",
    scopeKind: "organization",
    tag: "",
    serverId: "",
    device: "",
    severity: "warning",
    note: "",
  };
}

export function ruleToForm(rule: AlertRuleSummary): RuleForm {
  return {
    name: rule.name,
    enabled: rule.enabled,
    signal: rule.signal,
    aggregation: rule.aggregation as AlertAggregation,
    comparison: rule.comparison as AlertComparison,
    threshold: String(rule.threshold),
    windowMinutes: minutes(rule.windowSeconds),
    forMinutes: minutes(rule.forSeconds),
    resolveMinutes: minutes(rule.resolveSeconds),
    noDataMinutes: minutes(rule.noDataSeconds),
    scopeKind: rule.scope.scope,
    tag: rule.scope.scope === "tag" ? rule.scope.tag : "",
    serverId: rule.scope.scope === "server" || rule.scope.scope === "device" ? rule.scope.serverId : "",
    device: rule.scope.scope === "device" ? rule.scope.device : "",
    severity: rule.severity,
    note: rule.note,
  };
}

/** A blank number is NaN, so the schema says what is missing instead of reading it as 0. */
const number = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));
const seconds = (text: string) => Math.round(number(text) * 60);

/** What the API takes; validation (and its messages) is the domain schema's, on the server. */
export function formToRuleInput(form: RuleForm) {
  const scope =
    form.scopeKind === "organization"
      ? { scope: "organization" }
      : form.scopeKind === "tag"
        ? { scope: "tag", tag: form.tag.trim().toLowerCase() }
        : form.scopeKind === "server"
          ? { scope: "server", serverId: form.serverId }
          : { scope: "device", serverId: form.serverId, device: form.device.trim() };
  return {
    name: form.name,
    enabled: form.enabled,
    signal: form.signal,
    aggregation: form.aggregation,
    comparison: form.comparison,
    threshold: number(form.threshold),
    windowSeconds: seconds(form.windowMinutes),
    forSeconds: seconds(form.forMinutes),
    resolveSeconds: seconds(form.resolveMinutes),
    noDataSeconds: seconds(form.noDataMinutes),
    scope,
    severity: form.severity,
    note: form.note,
  };
}

/** Picking another signal keeps the aggregation when the signal takes it, else its first one. */
export function withSignal(form: RuleForm, signalId: string): RuleForm {
  const signal = findAlertSignal(signalId);
  const aggregation = signal && !signal.aggregations.includes(form.aggregation) ? signal.aggregations[0]! : form.aggregation;
  const scopeKind = signal && signal.level !== "device" && form.scopeKind === "device" ? "server" : form.scopeKind;
  return { ...form, signal: signalId, aggregation, scopeKind };
}
