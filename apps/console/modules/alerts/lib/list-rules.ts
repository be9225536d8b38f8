import { findAlertSignal, type AlertSeverity } from "@spindle/domain";
import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { AlertRuleSummary } from "../types/alerts";
import { scopeFromColumns } from "./describe-rule";

type RuleRow = Awaited<ReturnType<OrgTransaction["alertRule"]["findFirstOrThrow"]>>;

export function summariseRule(row: RuleRow, openAlerts: number): AlertRuleSummary {
  const signal = findAlertSignal(row.signal);
  return {
    id: row.id,
    defaultKey: row.defaultKey,
    name: row.name,
    enabled: row.enabled,
    signal: row.signal,
    signalLabel: signal?.label ?? `unknown signal ${row.signal}`,
    unit: signal?.unit ?? "",
    aggregation: row.aggregation,
    comparison: row.comparison,
    threshold: row.threshold,
    windowSeconds: row.windowSeconds,
    forSeconds: row.forSeconds,
    resolveSeconds: row.resolveSeconds,
    noDataSeconds: row.noDataSeconds,
    scope: scopeFromColumns(row),
    severity: row.severity as AlertSeverity,
    note: row.note,
    updatedAt: row.updatedAt.toISOString(),
    openAlerts,
  };
}

/** Defaults first (in the order they were seeded), then custom rules by name. */
export async function listRules(db: Db, orgId: string): Promise<{ rules: AlertRuleSummary[]; defaultsSeeded: boolean }> {
  return inOrg(db, orgId, async (tx) => {
    const [rows, open, progress] = await Promise.all([
      tx.alertRule.findMany({ where: { orgId }, orderBy: [{ createdAt: "asc" }, { name: "asc" }] }),
      tx.alertState.groupBy({ by: ["ruleId"], where: { orgId, state: { not: "ok" } }, _count: { _all: true } }),
      tx.alertEvaluationProgress.findUnique({ where: { orgId } }),
    ]);
    const counts = new Map(open.map((o) => [o.ruleId, o._count._all]));
    const rules = rows.map((row) => summariseRule(row, counts.get(row.id) ?? 0));
    rules.sort(
      (a, b) => Number(a.defaultKey === null) - Number(b.defaultKey === null) || (a.defaultKey === null ? a.name.localeCompare(b.name) : 0),
    );
    return { rules, defaultsSeeded: (progress?.defaultsVersion ?? 0) > 0 };
  });
}

export async function getRule(db: Db, orgId: string, ruleId: string): Promise<AlertRuleSummary> {
  if (!isUuid(ruleId)) throw notFound("This alert rule");
  return inOrg(db, orgId, async (tx) => {
    const row = await tx.alertRule.findFirst({ where: { orgId, id: ruleId } });
    if (!row) throw notFound("This alert rule");
    const open = await tx.alertState.count({ where: { orgId, ruleId, state: { not: "ok" } } });
    return summariseRule(row, open);
  });
}
