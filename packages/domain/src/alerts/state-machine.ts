// The state of one rule × subject, advanced by one evaluation. Pure: the worker and the preview
// run the same steps. Hysteresis both ways: a breach must last forSeconds before pending becomes
// firing, and a clear must last resolveSeconds before firing resolves, so a value hovering at the
// threshold neither fires nor resolves on every evaluation.
import type { AlertState } from "./schema.js";

export interface AlertSubjectState {
  state: AlertState;
  /** When the subject entered `state` (ms since the epoch). */
  stateSince: number;
  /** Start of the current run of breaching evaluations; null when the last one was not a breach. */
  conditionSince: number | null;
  /** Start of the current run of clear evaluations while firing; null otherwise. */
  clearSince: number | null;
}

/**
 * What one evaluation saw: the condition held (`breach`) or not (`clear`, which includes "too
 * little activity to measure"); no data yet but within the rule's no-data duration (`grace`,
 * nothing changes); or no data for at least that long (`no_data`).
 */
export type AlertObservation = "breach" | "clear" | "grace" | "no_data";

export interface AlertTiming {
  forSeconds: number;
  resolveSeconds: number;
}

export interface AlertStep {
  next: AlertSubjectState;
  /** The stored row must be written (a new subject, or any field moved). */
  changed: boolean;
  /** Set when the state itself changed: one history row and one notification. */
  transition: { from: AlertState; to: AlertState } | null;
}

/**
 * Advances `previous` (null: a subject seen for the first time, which starts ok) by one
 * evaluation at `at` (ms). A subject never seen with data is not created by grace or no_data.
 */
export function advanceAlertState(
  previous: AlertSubjectState | null,
  observation: AlertObservation,
  at: number,
  timing: AlertTiming,
): AlertStep | null {
  if (previous === null && (observation === "grace" || observation === "no_data")) return null;
  const prev: AlertSubjectState = previous ?? { state: "ok", stateSince: at, conditionSince: null, clearSince: null };
  const next = nextState(prev, observation, at, timing);
  const changed =
    previous === null || next.state !== prev.state || next.conditionSince !== prev.conditionSince || next.clearSince !== prev.clearSince;
  return { next, changed, transition: next.state !== prev.state ? { from: prev.state, to: next.state } : null };
}

function nextState(prev: AlertSubjectState, observation: AlertObservation, at: number, timing: AlertTiming): AlertSubjectState {
  const enter = (state: AlertState, conditionSince: number | null, clearSince: number | null): AlertSubjectState => ({
    state,
    stateSince: state === prev.state ? prev.stateSince : at,
    conditionSince,
    clearSince,
  });
  switch (observation) {
    case "grace":
      return prev;
    case "no_data":
      return enter("no_data", null, null);
    case "breach": {
      const since = prev.conditionSince ?? at;
      if (prev.state === "firing") return enter("firing", since, null);
      // From ok or no_data a breach starts the for-duration; pending fires once it has lasted.
      const held = prev.state === "pending" ? at - since >= timing.forSeconds * 1000 : timing.forSeconds === 0;
      return enter(held ? "firing" : "pending", since, null);
    }
    case "clear": {
      if (prev.state !== "firing") return enter("ok", null, null);
      const since = prev.clearSince ?? at;
      return at - since >= timing.resolveSeconds * 1000 ? enter("ok", null, null) : enter("firing", null, since);
    }
  }
}

/** The kind of a state change as people say it: a firing alert that clears is "resolved". */
export type AlertTransitionKind = "pending" | "firing" | "resolved" | "cleared" | "no_data" | "data_returned";

export function transitionKind(from: AlertState, to: AlertState): AlertTransitionKind {
  if (to === "firing") return "firing";
  if (to === "pending") return "pending";
  if (to === "no_data") return "no_data";
  if (from === "firing") return "resolved";
  if (from === "no_data") return "data_returned";
  return "cleared";
}
