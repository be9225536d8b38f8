// Batched writes of one evaluation: every changed state in one statement, each rule's history
// in one statement. A first evaluation of a large fleet creates thousands of ok states at once.
import type { AlertRule, AlertState, AlertSubjectState } from "@spindle/domain";
import type { TenantQueryable } from "@spindle/db";

export interface StateRow extends AlertSubjectState {
  ruleId: string;
  serverId: string;
  component: string;
  value: number | null;
}

export interface HistoryRow {
  serverId: string;
  component: string;
  from: AlertState;
  to: AlertState;
  value: number | null;
  silencedBy: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function writeStates(
  tx: TenantQueryable,
  orgId: string,
  at: Date,
  writes: StateRow[],
  deletes: { ruleId: string; serverId: string; component: string }[],
): Promise<void> {
  if (deletes.length > 0) {
    await tx.query(
      `DELETE FROM alert_states s USING unnest($2::uuid[], $3::uuid[], $4::text[]) AS d(rule_id, server_id, component)
        WHERE s.org_id = $1 AND s.rule_id = d.rule_id AND s.server_id = d.server_id AND s.component = d.component`,
      [orgId, deletes.map((d) => d.ruleId), deletes.map((d) => d.serverId), deletes.map((d) => d.component)],
    );
  }
  if (writes.length === 0) return;
  await tx.query(
    `INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, condition_since, clear_since, value, updated_at)
     SELECT $1, w.rule_id, w.server_id, w.component, w.state, w.state_since, w.condition_since, w.clear_since, w.value, $2
       FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[], $9::timestamptz[], $10::float8[])
         AS w(rule_id, server_id, component, state, state_since, condition_since, clear_since, value)
     ON CONFLICT (rule_id, server_id, component) DO UPDATE
       SET state = EXCLUDED.state, state_since = EXCLUDED.state_since, condition_since = EXCLUDED.condition_since,
           clear_since = EXCLUDED.clear_since, value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
    [
      orgId,
      at,
      writes.map((w) => w.ruleId),
      writes.map((w) => w.serverId),
      writes.map((w) => w.component),
      writes.map((w) => w.state),
      writes.map((w) => iso(w.stateSince)),
      writes.map((w) => iso(w.conditionSince)),
      writes.map((w) => iso(w.clearSince)),
      writes.map((w) => w.value),
    ],
  );
}

/** Inserts the rule's transitions of this tick; returns those written (a replayed tick writes none). */
export async function writeHistory(
  tx: TenantQueryable,
  orgId: string,
  rule: AlertRule,
  at: Date,
  rows: HistoryRow[],
): Promise<(HistoryRow & { historyId: string })[]> {
  const { rows: written } = await tx.query(
    `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison, silenced_by)
     SELECT $1, $2, $3, $4, h.server_id, h.component, $5, h.from_state, h.to_state, h.value, $6, $7, h.silenced_by
       FROM unnest($8::uuid[], $9::text[], $10::text[], $11::text[], $12::float8[], $13::uuid[])
         AS h(server_id, component, from_state, to_state, value, silenced_by)
     ON CONFLICT (rule_id, server_id, component, at) DO NOTHING
     RETURNING id::text, server_id::text, component`,
    [
      orgId,
      rule.id,
      rule.name,
      rule.severity,
      at,
      rule.threshold,
      rule.comparison,
      rows.map((r) => r.serverId),
      rows.map((r) => r.component),
      rows.map((r) => r.from),
      rows.map((r) => r.to),
      rows.map((r) => r.value),
      rows.map((r) => r.silencedBy),
    ],
  );
  const ids = new Map(written.map((w) => [`${w.server_id}\u0000${w.component}`, w.id as string]));
  return rows.flatMap((r) => {
    const historyId = ids.get(`${r.serverId}\u0000${r.component}`);
    return historyId ? [{ ...r, historyId }] : [];
  });
}
