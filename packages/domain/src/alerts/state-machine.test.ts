import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { advanceAlertState, transitionKind, type AlertObservation, type AlertSubjectState } from "./state-machine.js";

const timing = { forSeconds: 120, resolveSeconds: 60 };

/** Runs observations 30 s apart from t = 0 and returns the state after each, with transitions. */
function run(observations: AlertObservation[], start: AlertSubjectState | null = null, t = timing) {
  let state = start;
  return observations.map((observation, i) => {
    const step = advanceAlertState(state, observation, i * 30_000, t);
    if (step) state = step.next;
    return {
      state: state?.state ?? null,
      transition: step?.transition ? `${step.transition.from}->${step.transition.to}` : null,
      changed: step?.changed ?? false,
    };
  });
}

describe("advanceAlertState", () => {
  it("goes pending, fires after the for-duration, and resolves only after the resolve duration", () => {
    const steps = run(["breach", "breach", "breach", "breach", "breach", "clear", "breach", "clear", "clear", "clear"]);
    assert.deepEqual(
      steps.map((s) => s.state),
      ["pending", "pending", "pending", "pending", "firing", "firing", "firing", "firing", "firing", "ok"],
    );
    // t=0 pending (new subject), t=120 s: breached since 0 for 120 s → firing; clear at 150 s,
    // breach at 180 s restarts the clear run; clears at 210, 240, 270 s: 60 s clear → resolved.
    assert.deepEqual(steps.map((s) => s.transition).filter(Boolean), ["ok->pending", "pending->firing", "firing->ok"]);
    assert.equal(transitionKind("firing", "ok"), "resolved");
  });

  it("a breach shorter than the for-duration returns to ok without firing", () => {
    const steps = run(["breach", "breach", "clear", "clear"]);
    assert.deepEqual(
      steps.map((s) => s.transition),
      ["ok->pending", null, "pending->ok", null],
    );
    assert.equal(transitionKind("pending", "ok"), "cleared");
    assert.equal(steps[3]!.changed, false, "a quiet ok subject needs no write");
  });

  it("fires at once when the for-duration is zero", () => {
    assert.deepEqual(
      run(["breach"], null, { forSeconds: 0, resolveSeconds: 0 }).map((s) => s.transition),
      ["ok->firing"],
    );
  });

  it("holds its state during grace, enters no_data, and starts over when data returns", () => {
    const firing: AlertSubjectState = { state: "firing", stateSince: -600_000, conditionSince: -700_000, clearSince: null };
    const steps = run(["grace", "no_data", "no_data", "breach", "clear"], firing);
    assert.deepEqual(
      steps.map((s) => s.transition),
      [null, "firing->no_data", null, "no_data->pending", "pending->ok"],
    );
    assert.equal(steps[0]!.changed, false);
    assert.equal(transitionKind("firing", "no_data"), "no_data");
    assert.equal(transitionKind("no_data", "ok"), "data_returned");
  });

  it("creates no subject from grace or no data alone", () => {
    assert.equal(advanceAlertState(null, "grace", 0, timing), null);
    assert.equal(advanceAlertState(null, "no_data", 0, timing), null);
    const first = advanceAlertState(null, "clear", 0, timing);
    assert.deepEqual(first, {
      next: { state: "ok", stateSince: 0, conditionSince: null, clearSince: null },
      changed: true,
      transition: null,
    });
  });

  it("keeps the time a state was entered", () => {
    let state: AlertSubjectState | null = null;
    for (const [at, observation] of [
      [0, "breach"],
      [30_000, "breach"],
      [60_000, "breach"],
    ] as const) {
      state = advanceAlertState(state, observation, at, { forSeconds: 600, resolveSeconds: 0 })!.next;
    }
    assert.deepEqual(state, { state: "pending", stateSince: 0, conditionSince: 0, clearSince: null });
  });
});
