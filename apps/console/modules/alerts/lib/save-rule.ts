import { alertRuleInputSchema, type AlertRuleInput, type AlertScope } from "@spindle/domain";
import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { AlertRuleSummary } from "../types/alerts";
import { recordAlertAudit, requireAlertPermission, type AlertActor } from "./authorise";
import { scopeToColumns } from "./describe-rule";
import { summariseRule } from "./list-rules";

function parseRule(raw: unknown): AlertRuleInput {
  const parsed = alertRuleInputSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ProblemError(400, "Invalid request", "The rule is not valid; see the fields marked.", {
    errors: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
  });
}

/** A server or device scope names a server of this organisation (another tenant's is "not found"). */
async function checkScope(tx: OrgTransaction, orgId: string, scope: AlertScope): Promise<void> {
  if (scope.scope !== "server" && scope.scope !== "device") return;
  const server = await tx.server.findFirst({ where: { orgId, id: scope.serverId }, select: { id: true } });
  if (!server) {
    throw new ProblemError(400, "Invalid request", "The rule's server does not exist in your organisation.", {
      errors: [{ path: "scope.serverId", message: "pick a server of your organisation" }],
    });
  }
}

function columns(input: AlertRuleInput) {
  return {
    name: input.name,
    enabled: input.enabled,
    signal: input.signal,
    aggregation: input.aggregation,
    comparison: input.comparison,
    threshold: input.threshold,
    windowSeconds: input.windowSeconds,
    forSeconds: input.forSeconds,
    resolveSeconds: input.resolveSeconds,
    noDataSeconds: input.noDataSeconds,
    severity: input.severity,
    note: input.note,
    ...scopeToColumns(input.scope),
  };
}

export async function createRule(db: Db, actor: AlertActor, raw: unknown): Promise<AlertRuleSummary> {
  requireAlertPermission(actor, { alertRule: ["create"] });
  const input = parseRule(raw);
  return inOrg(db, actor.orgId, async (tx) => {
    await checkScope(tx, actor.orgId, input.scope);
    const row = await tx.alertRule.create({
      data: { orgId: actor.orgId, ...columns(input), createdBy: actor.userId, updatedBy: actor.userId },
    });
    await recordAlertAudit(tx, actor, "alert_rule.created", row.id, {
      name: row.name,
      signal: row.signal,
      threshold: row.threshold,
      severity: row.severity,
    });
    return summariseRule(row, 0);
  });
}

/** Replaces a rule's definition; a default rule keeps its key, so seeding never brings the original back. */
export async function updateRule(db: Db, actor: AlertActor, ruleId: string, raw: unknown): Promise<AlertRuleSummary> {
  requireAlertPermission(actor, { alertRule: ["update"] });
  const input = parseRule(raw);
  if (!isUuid(ruleId)) throw notFound("This alert rule");
  return inOrg(db, actor.orgId, async (tx) => {
    const before = await tx.alertRule.findFirst({ where: { orgId: actor.orgId, id: ruleId } });
    if (!before) throw notFound("This alert rule");
    await checkScope(tx, actor.orgId, input.scope);
    const row = await tx.alertRule.update({
      where: { id: ruleId },
      data: { ...columns(input), updatedBy: actor.userId, updatedAt: new Date() },
    });
    const changed = (Object.keys(columns(input)) as (keyof ReturnType<typeof columns>)[]).filter((key) => before[key] !== row[key]);
    await recordAlertAudit(tx, actor, "alert_rule.updated", row.id, { name: row.name, changed });
    const open = await tx.alertState.count({ where: { orgId: actor.orgId, ruleId, state: { not: "ok" } } });
    return summariseRule(row, open);
  });
}

/** The switch on the rules list. Turning a rule off lets the worker resolve its open alerts. */
export async function setRuleEnabled(db: Db, actor: AlertActor, ruleId: string, enabled: boolean): Promise<AlertRuleSummary> {
  requireAlertPermission(actor, { alertRule: ["update"] });
  if (!isUuid(ruleId)) throw notFound("This alert rule");
  return inOrg(db, actor.orgId, async (tx) => {
    const before = await tx.alertRule.findFirst({ where: { orgId: actor.orgId, id: ruleId } });
    if (!before) throw notFound("This alert rule");
    const row =
      before.enabled === enabled
        ? before
        : await tx.alertRule.update({ where: { id: ruleId }, data: { enabled, updatedBy: actor.userId, updatedAt: new Date() } });
    if (before.enabled !== enabled)
      await recordAlertAudit(tx, actor, enabled ? "alert_rule.enabled" : "alert_rule.disabled", row.id, { name: row.name });
    const open = await tx.alertState.count({ where: { orgId: actor.orgId, ruleId, state: { not: "ok" } } });
    return summariseRule(row, open);
  });
}

/**
 * Deletes a custom rule (its history stays, under the rule's name). A default rule is turned
 * off instead: deleted, it would not come back until the defaults change, which surprises.
 */
export async function deleteRule(db: Db, actor: AlertActor, ruleId: string): Promise<{ deleted: string }> {
  requireAlertPermission(actor, { alertRule: ["delete"] });
  if (!isUuid(ruleId)) throw notFound("This alert rule");
  return inOrg(db, actor.orgId, async (tx) => {
    const rule = await tx.alertRule.findFirst({ where: { orgId: actor.orgId, id: ruleId } });
    if (!rule) throw notFound("This alert rule");
    if (rule.defaultKey !== null)
      throw new ProblemError(409, "Default rule", `"${rule.name}" is one of the default rules: turn it off instead of deleting it.`);
    await tx.alertRule.delete({ where: { id: ruleId } });
    await recordAlertAudit(tx, actor, "alert_rule.deleted", ruleId, { name: rule.name });
    return { deleted: ruleId };
  });
}
