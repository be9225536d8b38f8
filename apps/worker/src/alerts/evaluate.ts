// One evaluation of one organisation's alert rules at one tick: observe every subject of every
// enabled rule on the 1-minute aggregates, advance its state, record each state change once in
// alert_history (marked when silenced), and hand each rule's changes to `onTransition` in the
// same transaction. Runs as spindle_worker with the organisation set; a per-organisation lock and
// the stored progress make a second evaluation of the same tick (another worker, a restart) a
// no-op, and the history's unique key refuses a duplicate row even without them.
import {
  advanceAlertState,
  findAlertSignal,
  findSilence,
  isSnapshotSource,
  observeRule,
  scopeCovers,
  transitionKind,
  type AlertRule,
  type BucketSource,
  type AlertState,
  type AlertSubjectState,
  type AlertTransition,
  type AlertTransitionGroup,
} from "@spindle/domain";
import { withOrgTransaction, type TenantQueryable } from "@spindle/db";
import type pg from "pg";
import { fetchSourceRows, fetchWindowSums, subjectKey, type SubjectRows } from "@spindle/timeseries";
import { loadRules, loadSilences, seedDefaultRules } from "./rules.js";
import { writeHistory, writeStates, type HistoryRow, type StateRow } from "./writes.js";

/**
 * Called once per rule that changed state in an evaluation, inside its transaction: what it
 * writes (the notification outbox) commits with the history or not at all.
 */
export type OnAlertTransition = (tx: TenantQueryable, group: AlertTransitionGroup) => Promise<void>;

export interface OrgEvaluation {
  /** false: this tick was already evaluated for the organisation (nothing was written). */
  evaluated: boolean;
  rules: number;
  subjects: number;
  transitions: number;
  defaultRulesAdded: number;
  /** Rules whose signal this worker does not know (a newer console?): skipped, named here. */
  skippedRules: string[];
}

const stepMillis = 60_000;

export async function evaluateOrganization(
  pool: pg.Pool,
  orgId: string,
  at: Date,
  onTransition?: OnAlertTransition,
): Promise<OrgEvaluation> {
  const client = await pool.connect();
  try {
    return await withOrgTransaction(client, orgId, "spindle_worker", (tx) => evaluateInTransaction(tx, orgId, at, onTransition));
  } finally {
    client.release();
  }
}

async function evaluateInTransaction(
  tx: TenantQueryable,
  orgId: string,
  at: Date,
  onTransition?: OnAlertTransition,
): Promise<OrgEvaluation> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('spindle.alerts'), hashtext($1))", [orgId]);
  const progress = (await tx.query("SELECT evaluated_at, defaults_version FROM alert_evaluation_progress WHERE org_id = $1", [orgId]))
    .rows[0];
  const result: OrgEvaluation = { evaluated: false, rules: 0, subjects: 0, transitions: 0, defaultRulesAdded: 0, skippedRules: [] };
  if (progress?.evaluated_at && (progress.evaluated_at as Date).getTime() >= at.getTime()) return result;
  result.evaluated = true;
  result.defaultRulesAdded = await seedDefaultRules(tx, orgId, progress?.defaults_version ?? 0);

  const rules = await loadRules(tx, orgId);
  const tags = await loadServerTags(tx, orgId);
  const silences = await loadSilences(tx, orgId, at);
  const states = await loadStates(tx, orgId);
  const fetched = new Map<string, Map<string, SubjectRows>>();

  const stateWrites: StateRow[] = [];
  const stateDeletes: { ruleId: string; serverId: string; component: string }[] = [];
  const pending: { rule: AlertRule; rows: HistoryRow[] }[] = [];
  for (const rule of rules) {
    if (!rule.enabled) {
      // Turned off: its subjects leave it, open alerts resolved, so nothing stays firing unseen.
      for (const stored of states.get(rule.id)?.values() ?? []) {
        stateDeletes.push({ ruleId: rule.id, serverId: stored.serverId, component: stored.component });
        const serverTags = tags.get(stored.serverId);
        if (stored.state !== "ok" && serverTags) {
          const subject = { serverId: stored.serverId, component: stored.component, tags: serverTags };
          history(pending, rule).push(historyRow(rule, subject, stored.state, "ok", null, silences, at));
        }
      }
      continue;
    }
    const signal = findAlertSignal(rule.signal);
    if (!signal) {
      result.skippedRules.push(`${rule.name} (${rule.id}): unknown signal ${rule.signal}`);
      continue;
    }
    result.rules++;
    // Enough history for the window and for telling "no data yet" from "no data for too long".
    const lookbackMillis = isSnapshotSource(signal.source)
      ? rule.windowSeconds * 1000
      : Math.max(rule.windowSeconds, rule.noDataSeconds) * 1000 + stepMillis;
    const from = new Date(Math.floor((at.getTime() - lookbackMillis) / stepMillis) * stepMillis);
    const query = { orgId, from, to: at, serverIds: [...tags.keys()] };
    const perMinute = isSnapshotSource(signal.source) || rule.aggregation === "max" || rule.aggregation === "min";
    const data = perMinute
      ? await cached(fetched, `${signal.source}@${from.getTime()}`, () => fetchSourceRows(tx, signal.source, query))
      : await cached(fetched, `${signal.source}@${from.getTime()}/${windowStart(at, rule.windowSeconds).getTime()}`, () =>
          fetchWindowSums(tx, signal.source as BucketSource, query, windowStart(at, rule.windowSeconds)),
        );
    const ruleStates = states.get(rule.id) ?? new Map<string, AlertSubjectState & { serverId: string; component: string }>();
    const keys = new Set([...data.keys(), ...ruleStates.keys()]);
    const changes: HistoryRow[] = [];
    for (const key of keys) {
      const stored = ruleStates.get(key);
      const rows = data.get(key);
      const serverId = rows?.serverId ?? stored!.serverId;
      const component = rows?.component ?? stored!.component;
      const serverTags = tags.get(serverId);
      if (serverTags === undefined) continue; // the server was deleted; its rows cascade away
      const subject = { serverId, component, tags: serverTags };
      if (!scopeCovers(rule.scope, subject)) {
        // The rule was narrowed: the subject leaves it, resolved if it was not ok.
        if (stored) {
          stateDeletes.push({ ruleId: rule.id, serverId, component });
          if (stored.state !== "ok") changes.push(historyRow(rule, subject, stored.state, "ok", null, silences, at));
        }
        continue;
      }
      result.subjects++;
      const observed = observeRule(signal, rule, rows?.rows ?? [], at.getTime());
      const step = advanceAlertState(stored ?? null, observed.observation, at.getTime(), rule);
      if (step === null || !step.changed) continue;
      stateWrites.push({ ruleId: rule.id, serverId, component, ...step.next, value: observed.value });
      if (step.transition) changes.push(historyRow(rule, subject, step.transition.from, step.transition.to, observed.value, silences, at));
    }
    if (changes.length > 0) pending.push({ rule, rows: changes });
  }

  await writeStates(tx, orgId, at, stateWrites, stateDeletes);
  for (const { rule, rows } of pending) {
    const written = await writeHistory(tx, orgId, rule, at, rows);
    result.transitions += written.length;
    if (written.length > 0 && onTransition) await onTransition(tx, groupOf(orgId, rule, at, written));
  }
  await tx.query(
    `INSERT INTO alert_evaluation_progress (org_id, evaluated_at) VALUES ($1, $2)
     ON CONFLICT (org_id) DO UPDATE SET evaluated_at = EXCLUDED.evaluated_at`,
    [orgId, at],
  );
  return result;
}

/** The rule's list of changes in this evaluation, created on first use. */
function history(pending: { rule: AlertRule; rows: HistoryRow[] }[], rule: AlertRule): HistoryRow[] {
  let entry = pending.find((p) => p.rule.id === rule.id);
  if (!entry) pending.push((entry = { rule, rows: [] }));
  return entry.rows;
}

function historyRow(
  rule: AlertRule,
  subject: { serverId: string; component: string; tags: readonly string[] },
  from: AlertState,
  to: AlertState,
  value: number | null,
  silences: Parameters<typeof findSilence>[0],
  at: Date,
): HistoryRow {
  return {
    serverId: subject.serverId,
    component: subject.component,
    from,
    to,
    value,
    silencedBy: findSilence(silences, rule.id, subject, at)?.id ?? null,
  };
}

function groupOf(orgId: string, rule: AlertRule, at: Date, written: (HistoryRow & { historyId: string })[]): AlertTransitionGroup {
  const transitions: AlertTransition[] = written.map((row) => ({
    historyId: row.historyId,
    serverId: row.serverId,
    component: row.component,
    from: row.from,
    to: row.to,
    kind: transitionKind(row.from, row.to),
    value: row.value,
    silencedBy: row.silencedBy,
  }));
  const signal = findAlertSignal(rule.signal);
  return {
    orgId,
    ruleId: rule.id,
    ruleName: rule.name,
    signal: rule.signal,
    severity: rule.severity,
    scope: rule.scope,
    comparison: rule.comparison,
    threshold: rule.threshold,
    at,
    note: rule.note,
    transitions,
    unit: signal?.unit ?? "",
    basis: `${rule.aggregation} over ${windowWords(rule.windowSeconds)}: ${signal?.basis ?? `signal ${rule.signal}`}`,
  };
}

function windowWords(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/** One query per source, range and mode, shared by the rules that read it. */
async function cached(cache: Map<string, Map<string, SubjectRows>>, key: string, fetch: () => Promise<Map<string, SubjectRows>>) {
  let rows = cache.get(key);
  if (!rows) cache.set(key, (rows = await fetch()));
  return rows;
}

/** The first bucket start in a rule's window (observeRule's [at − window, at)). */
function windowStart(at: Date, windowSeconds: number): Date {
  return new Date(at.getTime() - windowSeconds * 1000);
}

async function loadServerTags(tx: TenantQueryable, orgId: string): Promise<Map<string, string[]>> {
  const { rows } = await tx.query("SELECT id::text, tags FROM servers WHERE org_id = $1", [orgId]);
  return new Map(rows.map((r) => [r.id as string, r.tags as string[]]));
}

type StoredState = AlertSubjectState & { serverId: string; component: string };

async function loadStates(tx: TenantQueryable, orgId: string): Promise<Map<string, Map<string, StoredState>>> {
  const { rows } = await tx.query(
    `SELECT rule_id::text, server_id::text, component, state, state_since, condition_since, clear_since
       FROM alert_states WHERE org_id = $1`,
    [orgId],
  );
  const byRule = new Map<string, Map<string, StoredState>>();
  for (const r of rows) {
    let states = byRule.get(r.rule_id);
    if (!states) byRule.set(r.rule_id, (states = new Map()));
    states.set(subjectKey(r.server_id, r.component), {
      serverId: r.server_id,
      component: r.component,
      state: r.state,
      stateSince: (r.state_since as Date).getTime(),
      conditionSince: r.condition_since ? (r.condition_since as Date).getTime() : null,
      clearSince: r.clear_since ? (r.clear_since as Date).getTime() : null,
    });
  }
  return byRule;
}
