import { findSilence, type AlertSeverity } from "@spindle/domain";
import { inOrgSql, type Db } from "@/lib/db";
import type { OpenAlert } from "../types/alerts";
import { acknowledgementOf } from "./acknowledge";
import { alertValue } from "./describe-rule";
import { loadSilencesInForce } from "./load-silences";

type OpenAlertRow = {
  ruleId: string;
  ruleName: string;
  severity: string;
  signal: string;
  aggregation: string;
  windowSeconds: number;
  comparison: string;
  threshold: number;
  note: string;
  state: string;
  stateSince: Date;
  value: number | null;
  serverId: string;
  component: string;
  hostname: string | null;
  tags: string[] | null;
  alertId: string | null;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
  acknowledgeNote: string | null;
  acknowledgedByName: string | null;
};

/**
 * One row per open alert with its rule, server, and for a firing alert its change to firing (the
 * history row at the state's start, found on alert_history's (rule_id, server_id, component, at)
 * key) and who acknowledged it. Every table is filtered on the organisation as well as the
 * transaction's row-level security; users (better-auth's, no org_id) are only reached through
 * this organisation's history rows.
 */
const openAlertsSql = `
SELECT s.rule_id::text AS "ruleId", r.name AS "ruleName", r.severity, r.signal, r.aggregation, r.window_seconds AS "windowSeconds",
       r.comparison, r.threshold, r.note,
       s.state, s.state_since AS "stateSince", s.value, s.server_id::text AS "serverId", s.component,
       v.hostname, v.tags,
       h.id::text AS "alertId", h.acknowledged_at AS "acknowledgedAt", h.acknowledged_by AS "acknowledgedBy",
       h.acknowledge_note AS "acknowledgeNote", u.name AS "acknowledgedByName"
FROM alert_states s
JOIN alert_rules r ON r.id = s.rule_id AND r.org_id = $1 AND r.enabled
LEFT JOIN servers v ON v.id = s.server_id AND v.org_id = $1
LEFT JOIN alert_history h ON s.state = 'firing' AND h.org_id = $1 AND h.to_state = 'firing'
  AND h.rule_id = s.rule_id AND h.server_id = s.server_id AND h.component = s.component AND h.at = s.state_since
LEFT JOIN users u ON u.id = h.acknowledged_by
WHERE s.org_id = $1 AND s.state IN ('pending', 'firing', 'no_data') AND ($2::uuid IS NULL OR s.server_id = $2::uuid)
ORDER BY s.rule_id, s.server_id, s.component`;

const severityRank: Record<string, number> = { critical: 0, warning: 1, info: 2 };
const stateRank: Record<string, number> = { firing: 0, no_data: 1, pending: 2 };

/**
 * What is wrong now: every rule × subject pending, firing or without data, of enabled rules,
 * optionally for one server. Firing first, then by severity, longest-standing first. A silence
 * in force now is shown beside the alert (the worker also marks the transitions it covers).
 * In SQL on the pg pool, one query for the alerts and one for the silences: the fleet page polls
 * this, and on 1,000 servers Prisma's six queries and row mapping cost several times the CPU
 * (docs/benchmarks.md, "Console at fleet scale").
 */
export async function listOpenAlerts(db: Db, orgId: string, options: { serverId?: string; now?: Date } = {}): Promise<OpenAlert[]> {
  const now = options.now ?? new Date();
  return inOrgSql(db, orgId, async (sql) => {
    const { rows } = await sql.query<OpenAlertRow>(openAlertsSql, [orgId, options.serverId ?? null]);
    if (rows.length === 0) return [];
    const silences = await loadSilencesInForce(sql, orgId, now);
    const alerts = rows.map((row): OpenAlert => {
      const silence = findSilence(silences, row.ruleId, { serverId: row.serverId, component: row.component, tags: row.tags ?? [] }, now);
      const firing = row.alertId !== null;
      const names = new Map(
        row.acknowledgedBy !== null && row.acknowledgedByName !== null ? [[row.acknowledgedBy, row.acknowledgedByName]] : [],
      );
      return {
        ruleId: row.ruleId,
        ruleName: row.ruleName,
        severity: row.severity as AlertSeverity,
        state: row.state as OpenAlert["state"],
        since: row.stateSince.toISOString(),
        serverId: row.serverId,
        hostname: row.hostname ?? "a removed server",
        component: row.component,
        value: alertValue(row, { value: row.state === "no_data" ? null : row.value, comparison: row.comparison, threshold: row.threshold }),
        note: row.note,
        silence: silence ? { id: silence.id, comment: silence.comment, endsAt: silence.endsAt.toISOString() } : null,
        alertId: row.alertId,
        acknowledgement: firing ? acknowledgementOf(row, names) : null,
      };
    });
    return alerts.sort(
      (a, b) =>
        stateRank[a.state]! - stateRank[b.state]! ||
        severityRank[a.severity]! - severityRank[b.severity]! ||
        a.since.localeCompare(b.since) ||
        a.hostname.localeCompare(b.hostname),
    );
  });
}
