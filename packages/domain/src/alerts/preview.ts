// "How often would this rule have fired?": the rule replayed over stored history, with the same
// observation and state machine as the worker, one evaluation per minute (the worker evaluates
// every 30 s, but the data has 1-minute grain, so the answer is the same to within a minute).
import type { AlertCondition } from "./schema.js";
import { isSnapshotSource, type AlertSignal } from "./signals.js";
import { advanceAlertState, type AlertSubjectState } from "./state-machine.js";
import { bucketMillis, observeRule, type SourceRow } from "./observe.js";

export interface PreviewSubject {
  serverId: string;
  component: string;
  /** The subject's buckets, any order, covering [from − window, to). */
  rows: readonly SourceRow[];
}

export interface PreviewSubjectResult {
  serverId: string;
  component: string;
  firings: number;
  firingSeconds: number;
  noDataEntries: number;
  /** Pendings that cleared before firing (noise the for-duration absorbed). */
  pendingsCleared: number;
  evaluations: number;
}

export type AlertPreview =
  | {
      previewable: true;
      from: Date;
      to: Date;
      evaluations: number;
      /** Times any subject went to firing: what would have notified. */
      firings: number;
      /** Times a subject went pending but cleared before firing (noise the for-duration absorbed). */
      pendingsCleared: number;
      noDataEntries: number;
      /** Subjects with data in the range, and those that fired at least once. */
      subjects: number;
      subjectsFired: number;
      firingSeconds: number;
      /** Per subject, those that fired or went silent first, then the rest. */
      bySubject: PreviewSubjectResult[];
      basis: string;
    }
  | { previewable: false; reason: string };

/** Replays `condition` on each subject's history from `from` to `to`. */
export function previewAlertRule(
  signal: AlertSignal,
  condition: AlertCondition,
  subjects: readonly PreviewSubject[],
  from: Date,
  to: Date,
): AlertPreview {
  if (isSnapshotSource(signal.source)) return notPreviewable(signal);
  return summarisePreview(
    signal,
    subjects.map((subject) => replaySubject(signal, condition, subject, from, to)),
    from,
    to,
  );
}

export function notPreviewable(signal: AlertSignal): AlertPreview {
  return {
    previewable: false,
    reason: `${signal.label} is the current state of the fleet, not a stored time series, so its past cannot be replayed`,
  };
}

/** One subject replayed; callers holding many subjects replay them in batches and summarise once. */
export function replaySubject(
  signal: AlertSignal,
  condition: AlertCondition,
  subject: PreviewSubject,
  from: Date,
  to: Date,
): PreviewSubjectResult {
  const start = firstEvaluation(from);
  const end = to.getTime();
  const lookbackMillis = Math.max(condition.windowSeconds, condition.noDataSeconds) * 1000 + bucketMillis;
  const rows = [...subject.rows].sort((a, b) => a.start - b.start);
  const result: PreviewSubjectResult = {
    serverId: subject.serverId,
    component: subject.component,
    firings: 0,
    firingSeconds: 0,
    noDataEntries: 0,
    pendingsCleared: 0,
    evaluations: 0,
  };
  let state: AlertSubjectState | null = null;
  let lo = 0;
  let hi = 0;
  for (let at = start; at <= end; at += bucketMillis) {
    // The rows the worker would have fetched at `at`: a sliding range, so each tick is cheap.
    while (hi < rows.length && rows[hi]!.start < at) hi++;
    while (lo < hi && rows[lo]!.start < at - lookbackMillis) lo++;
    const { observation } = observeRule(signal, condition, rows.slice(lo, hi), at);
    const step = advanceAlertState(state, observation, at, condition);
    result.evaluations++;
    if (state?.state === "firing") result.firingSeconds += bucketMillis / 1000;
    if (step === null) continue;
    if (step.transition?.to === "firing") result.firings++;
    if (step.transition?.to === "no_data") result.noDataEntries++;
    if (step.transition?.from === "pending" && step.transition.to === "ok") result.pendingsCleared++;
    state = step.next;
  }
  return result;
}

const firstEvaluation = (from: Date) => Math.ceil(from.getTime() / bucketMillis) * bucketMillis;

export function summarisePreview(signal: AlertSignal, results: readonly PreviewSubjectResult[], from: Date, to: Date): AlertPreview {
  const bySubject = [...results].sort(
    (a, b) =>
      b.firings - a.firings ||
      b.noDataEntries - a.noDataEntries ||
      a.serverId.localeCompare(b.serverId) ||
      a.component.localeCompare(b.component),
  );
  const sum = (pick: (r: PreviewSubjectResult) => number) => bySubject.reduce((total, r) => total + pick(r), 0);
  return {
    previewable: true,
    from: new Date(firstEvaluation(from)),
    to,
    evaluations: sum((r) => r.evaluations),
    firings: sum((r) => r.firings),
    pendingsCleared: sum((r) => r.pendingsCleared),
    noDataEntries: sum((r) => r.noDataEntries),
    subjects: bySubject.length,
    subjectsFired: bySubject.filter((r) => r.firings > 0).length,
    firingSeconds: sum((r) => r.firingSeconds),
    bySubject,
    basis: `replayed once a minute on the stored 1-minute aggregates (${signal.basis})`,
  };
}
