import { findSilence, type AlertSeverity } from "@spindle/domain";
import { inOrg, type Db } from "@/lib/db";
import type { OpenAlert } from "../types/alerts";
import { acknowledgementOf } from "./acknowledge";
import { alertValue } from "./describe-rule";
import { loadSilencesInForce } from "./load-silences";
import { namesOf } from "./silences";

type FiringRow = {
  id: string; ruleId: string; serverId: string; component: string;
  acknowledgedAt: Date | null; acknowledgedBy: string | null; acknowledgeNote: string | null;
};

const severityRank: Record<string, number> = { critical: 0, warning: 1, info: 2 };
const stateRank: Record<string, number> = { firing: 0, no_data: 1, pending: 2 };

/**
 * What is wrong now: every rule × subject pending, firing or without data, of enabled rules,
 * optionally for one server. Firing first, then by severity, longest-standing first. A silence
 * in force now is shown beside the alert (the worker also marks the transitions it covers).
 */
export async function listOpenAlerts(db: Db, orgId: string, options: { serverId?: string; now?: Date } = {}): Promise<OpenAlert[]> {
  const now = options.now ?? new Date();
  return inOrg(db, orgId, async (tx) => {
    const states = await tx.alertState.findMany({
      where: { orgId, state: { in: ["pending", "firing", "no_data"] }, rule: { enabled: true }, ...(options.serverId ? { serverId: options.serverId } : {}) },
      include: { rule: true },
    });
    if (states.length === 0) return [];
    const servers = await tx.server.findMany({ where: { orgId, id: { in: [...new Set(states.map((s) => s.serverId))] } }, select: { id: true, hostname: true, tags: true } });
    const byId = new Map(servers.map((s) => [s.id, s]));
    const silences = await loadSilencesInForce(tx, orgId, now);
    // A firing alert is its change to firing: the history row at the state's start. One join on
    // alert_history's (rule_id, server_id, component, at) key, not one OR branch per firing
    // alert: an outage across a large fleet fires thousands, and four bind parameters each would
    // pass PostgreSQL's 65,535 limit.
    const serverId = options.serverId ?? null;
    const firings = !states.some((s) => s.state === "firing") ? [] : await tx.$queryRaw<FiringRow[]>`
      SELECT h.id::text AS id, h.rule_id::text AS "ruleId", h.server_id::text AS "serverId", h.component,
             h.acknowledged_at AS "acknowledgedAt", h.acknowledged_by AS "acknowledgedBy", h.acknowledge_note AS "acknowledgeNote"
      FROM alert_states s
      JOIN alert_history h ON h.rule_id = s.rule_id AND h.server_id = s.server_id AND h.component = s.component AND h.at = s.state_since
      WHERE s.org_id = ${orgId} AND s.state = 'firing' AND (${serverId}::uuid IS NULL OR s.server_id = ${serverId}::uuid)
        AND h.org_id = ${orgId} AND h.to_state = 'firing'`;
    const firingOf = new Map(firings.map((f) => [`${f.ruleId}/${f.serverId}/${f.component}`, f]));
    const names = await namesOf(tx, firings.map((f) => f.acknowledgedBy));
    const alerts = states.map((s): OpenAlert => {
      const server = byId.get(s.serverId);
      const silence = findSilence(silences, s.ruleId, { serverId: s.serverId, component: s.component, tags: server?.tags ?? [] }, now);
      const firingRow = s.state === "firing" ? firingOf.get(`${s.ruleId}/${s.serverId}/${s.component}`) : undefined;
      return {
        ruleId: s.ruleId,
        ruleName: s.rule.name,
        severity: s.rule.severity as AlertSeverity,
        state: s.state as OpenAlert["state"],
        since: s.stateSince.toISOString(),
        serverId: s.serverId,
        hostname: server?.hostname ?? "a removed server",
        component: s.component,
        value: alertValue(s.rule, { value: s.state === "no_data" ? null : s.value, comparison: s.rule.comparison, threshold: s.rule.threshold }),
        note: s.rule.note,
        silence: silence ? { id: silence.id, comment: silence.comment, endsAt: silence.endsAt.toISOString() } : null,
        alertId: firingRow?.id ?? null,
        acknowledgement: firingRow ? acknowledgementOf(firingRow, names) : null,
      };
    });
    return alerts.sort((a, b) =>
      stateRank[a.state]! - stateRank[b.state]! || severityRank[a.severity]! - severityRank[b.severity]! || a.since.localeCompare(b.since) || a.hostname.localeCompare(b.hostname));
  });
}

