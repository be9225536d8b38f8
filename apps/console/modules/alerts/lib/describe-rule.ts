// Words and bases for rule figures, from the one signal list in @spindle/domain, so every value
// the console shows says what it was measured from.
import { findAlertSignal, type AlertScope } from "@spindle/domain";
import type { AlertValue } from "../types/alerts";

export function formatDuration(seconds: number): string {
  if (seconds === 0) return "0 s";
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

const aggregationWords: Record<string, string> = {
  avg: "average",
  sum: "sum",
  max: "maximum",
  min: "minimum",
  last: "latest value",
  p50: "p50",
  p90: "p90",
  p95: "p95",
  p99: "p99",
};

/** "p99 over 5 min of 1-minute aggregates: percentile of …" */
export function describeBasis(signalId: string, aggregation: string, windowSeconds: number): string {
  const signal = findAlertSignal(signalId);
  if (!signal) return `unknown signal ${signalId}: the worker skips this rule`;
  const how =
    aggregation === "last"
      ? "latest state"
      : `${aggregationWords[aggregation] ?? aggregation} over ${formatDuration(windowSeconds)} of 1-minute aggregates`;
  return `${how}; ${signal.basis}`;
}

export function alertValue(
  rule: { signal: string; aggregation: string; windowSeconds: number } | null,
  fields: { value: number | null; comparison: string; threshold: number },
): AlertValue {
  const signal = rule ? findAlertSignal(rule.signal) : undefined;
  return {
    value: fields.value,
    unit: signal?.unit ?? "",
    comparison: fields.comparison,
    threshold: fields.threshold,
    basis: rule ? describeBasis(rule.signal, rule.aggregation, rule.windowSeconds) : "the rule was deleted; its basis is no longer known",
  };
}

export function describeScope(scope: AlertScope, hostnames: ReadonlyMap<string, string>): string {
  switch (scope.scope) {
    case "organization":
      return "every server";
    case "tag":
      return `servers tagged ${scope.tag}`;
    case "server":
      return hostnames.get(scope.serverId) ?? "a removed server";
    case "device":
      return `${scope.device} on ${hostnames.get(scope.serverId) ?? "a removed server"}`;
  }
}

/** Rows store a scope as four columns; the domain schema is the shape everyone else uses. */
export function scopeFromColumns(row: { scope: string; tag: string | null; serverId: string | null; device: string | null }): AlertScope {
  switch (row.scope) {
    case "tag":
      return { scope: "tag", tag: row.tag! };
    case "server":
      return { scope: "server", serverId: row.serverId! };
    case "device":
      return { scope: "device", serverId: row.serverId!, device: row.device! };
    default:
      return { scope: "organization" };
  }
}

export function scopeToColumns(scope: AlertScope): { scope: string; tag: string | null; serverId: string | null; device: string | null } {
  return {
    scope: scope.scope,
    tag: scope.scope === "tag" ? scope.tag : null,
    serverId: scope.scope === "server" || scope.scope === "device" ? scope.serverId : null,
    device: scope.scope === "device" ? scope.device : null,
  };
}
