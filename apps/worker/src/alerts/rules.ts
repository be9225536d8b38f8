// Alert rules and silences as the worker reads them, and the seeding of default rules.
import {
  alertScopeSchema,
  defaultAlertRules,
  defaultAlertRulesVersion,
  type AlertAggregation,
  type AlertComparison,
  type AlertRule,
  type AlertScope,
  type AlertSeverity,
  type AlertSilence,
} from "@spindle/domain";
import type { TenantQueryable } from "@spindle/db";

interface ScopeColumns {
  scope: string;
  tag: string | null;
  server_id: string | null;
  device: string | null;
}

function scopeOf(row: ScopeColumns): AlertScope {
  return alertScopeSchema.parse(
    row.scope === "organization"
      ? { scope: "organization" }
      : row.scope === "tag"
        ? { scope: "tag", tag: row.tag }
        : row.scope === "server"
          ? { scope: "server", serverId: row.server_id }
          : { scope: "device", serverId: row.server_id, device: row.device },
  );
}

/** The organisation's rules, enabled and not. */
export async function loadRules(tx: TenantQueryable, orgId: string): Promise<AlertRule[]> {
  const { rows } = await tx.query(
    `SELECT id::text, default_key, name, enabled, signal, aggregation, comparison, threshold, window_seconds, for_seconds,
            resolve_seconds, no_data_seconds, scope, tag, server_id::text, device, severity, note
       FROM alert_rules WHERE org_id = $1 ORDER BY created_at, id`,
    [orgId],
  );
  return rows.map((r) => ({
    id: r.id,
    orgId,
    defaultKey: r.default_key,
    name: r.name,
    enabled: r.enabled,
    signal: r.signal,
    aggregation: r.aggregation as AlertAggregation,
    comparison: r.comparison as AlertComparison,
    threshold: r.threshold,
    windowSeconds: r.window_seconds,
    forSeconds: r.for_seconds,
    resolveSeconds: r.resolve_seconds,
    noDataSeconds: r.no_data_seconds,
    scope: scopeOf(r),
    severity: r.severity as AlertSeverity,
    note: r.note,
  }));
}

/** Silences not ended before `at` (cancelled ones too: a cancellation ends them at cancelled_at). */
export async function loadSilences(tx: TenantQueryable, orgId: string, at: Date): Promise<AlertSilence[]> {
  const { rows } = await tx.query(
    `SELECT id::text, rule_id::text, scope, tag, server_id::text, device, starts_at, ends_at, comment, cancelled_at
       FROM alert_silences WHERE org_id = $1 AND ends_at > $2 AND starts_at <= $2 ORDER BY created_at, id`,
    [orgId, at],
  );
  return rows.map((r) => ({
    id: r.id,
    ruleId: r.rule_id,
    scope: scopeOf(r),
    startsAt: r.starts_at,
    endsAt: r.ends_at,
    comment: r.comment,
    cancelledAt: r.cancelled_at,
  }));
}

/**
 * Gives the organisation every default rule it has not had yet, once per defaults version:
 * rules already there (edited or turned off) are left alone, and a default the organisation
 * deleted stays deleted until a new version of the defaults. Returns the rules added.
 */
export async function seedDefaultRules(tx: TenantQueryable, orgId: string, seededVersion: number): Promise<number> {
  if (seededVersion >= defaultAlertRulesVersion) return 0;
  let added = 0;
  for (const rule of defaultAlertRules) {
    const { rows } = await tx.query(
      `INSERT INTO alert_rules (org_id, default_key, name, signal, aggregation, comparison, threshold, window_seconds, for_seconds,
         resolve_seconds, no_data_seconds, scope, severity, note)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'organization', $12, $13)
       ON CONFLICT (org_id, default_key) DO NOTHING RETURNING id`,
      [
        orgId,
        rule.key,
        rule.name,
        rule.signal,
        rule.aggregation,
        rule.comparison,
        rule.threshold,
        rule.windowSeconds,
        rule.forSeconds,
        rule.resolveSeconds,
        rule.noDataSeconds,
        rule.severity,
        rule.note,
      ],
    );
    added += rows.length;
  }
  await tx.query(
    `INSERT INTO alert_evaluation_progress (org_id, defaults_version) VALUES ($1, $2)
     ON CONFLICT (org_id) DO UPDATE SET defaults_version = EXCLUDED.defaults_version`,
    [orgId, defaultAlertRulesVersion],
  );
  return added;
}
