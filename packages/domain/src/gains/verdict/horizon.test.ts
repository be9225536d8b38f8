import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkpointsOf, horizonSettings, lookAt } from "./horizon.js";

const changeAt = new Date("2026-11-20T10:00:00Z");
const after = (minutes: number) => new Date(changeAt.getTime() + minutes * 60_000);

describe("the fixed horizon", () => {
  it("reads provisional checkpoints at a strict alpha, and the final verdict at the horizon", () => {
    assert.deepEqual(checkpointsOf(horizonSettings()), [60, 180, 360, 720, 1440]);
    const early = lookAt(changeAt, after(61));
    assert.deepEqual(early, {
      status: "too-early",
      reason: "the first reading is taken 60 minutes after the change",
      firstAt: after(62),
      finalAt: after(1442),
    });
    const first = lookAt(changeAt, after(62));
    assert.deepEqual(first, {
      status: "look",
      stage: "provisional",
      afterMinutes: 60,
      alpha: 0.001,
      horizonMinutes: 1440,
      finalAt: after(1442),
    });
    // Between checkpoints the latest one is read again: the same answer on every page view.
    assert.equal(
      lookAt(changeAt, after(500)).status === "look" && (lookAt(changeAt, after(500)) as { afterMinutes: number }).afterMinutes,
      360,
    );
    const final = lookAt(changeAt, after(1442));
    assert.equal(final.status === "look" && final.stage, "final");
    assert.equal(final.status === "look" && final.alpha, 0.05);
    assert.equal(final.status === "look" && final.afterMinutes, 1440, "the final verdict keeps its window when read days later");
    assert.equal((lookAt(changeAt, after(10_000)) as { afterMinutes: number }).afterMinutes, 1440);
  });

  it("has only the final look for a one-hour horizon, and refuses horizons under an hour", () => {
    assert.deepEqual(checkpointsOf(horizonSettings({ horizonMinutes: 60 })), [60]);
    assert.equal(
      lookAt(changeAt, after(62), { horizonMinutes: 60 }).status === "look" &&
        (lookAt(changeAt, after(62), { horizonMinutes: 60 }) as { stage: string }).stage,
      "final",
    );
    assert.throws(() => horizonSettings({ horizonMinutes: 30 }), /at least 60 minutes/);
    assert.throws(() => horizonSettings({ horizonMinutes: 30, minimumMinutes: 10 }), /at least 60 minutes/);
  });
});
