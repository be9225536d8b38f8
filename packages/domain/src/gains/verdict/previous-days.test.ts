import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareWithPreviousDays, placeboDegreesOfFreedom } from "./previous-days.js";

const close = (actual: number, expected: number, tolerance = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} ≠ ${expected}`);
/** A window whose ratio is `value`, over 1,000 reads. */
const window = (value: number) => ({ numerator: value * 1000, denominator: 1000 });

describe("the same window on the previous days", () => {
  it("predicts from the two most recent days and measures the error on placebo predictions", () => {
    // Absolute scale (a 0 forces it): days 1…6 = 4, 2, 4, 2, 4, 0 (most recent first); after = 6.
    // Prediction (4 + 2) / 2 = 3 → estimate 3. Placebos: 2 − 3 = −1, 4 − 3 = 1, 2 − 3 = −1, 4 − 1 = 3.
    const result = compareWithPreviousDays(window(6), [4, 2, 4, 2, 4, 0].map(window), "reads");
    assert.equal(result.status, "compared");
    assert.equal(result.estimate.scale, "absolute");
    close(result.estimate.estimate, 3);
    close(result.estimate.standardError, Math.sqrt((1 + 1 + 1 + 0) / 4));
    close(result.expected, 3);
    assert.equal(result.placebos, 4);
    assert.deepEqual(result.days, [1, 2, 3, 4, 5, 6]);
    close(result.estimate.degreesOfFreedom, placeboDegreesOfFreedom(4, 2));
  });

  it("compares log ratios when every value is positive", () => {
    const result = compareWithPreviousDays(window(2), [1, 1, 1, 1, 1, 1, 1].map(window), "reads");
    assert.equal(result.status === "compared" && result.estimate.scale, "relative");
    close(result.status === "compared" ? result.estimate.estimate : NaN, Math.log(2));
    assert.equal(result.status === "compared" && result.estimate.standardError, 0);
  });

  it("skips days without the window, and needs four", () => {
    const days = [window(1), null, { numerator: 1, denominator: 50 }, window(1), window(1), null, window(1), window(1)];
    const result = compareWithPreviousDays(window(1), days, "reads");
    assert.equal(result.status, "compared");
    assert.deepEqual(result.status === "compared" && result.days, [1, 4, 5, 7], "day 8 is past the week; day 3 has too few reads");
    const few = compareWithPreviousDays(window(1), [window(1), null, window(1), window(1)], "reads");
    assert.deepEqual(few, {
      status: "not-enough-data",
      reason: "3 of the 7 previous days have this window with at least 100 reads; 4 are needed",
    });
    const idle = compareWithPreviousDays({ numerator: 0, denominator: 10 }, [1, 1, 1, 1].map(window), "reads");
    assert.equal(idle.status, "not-enough-data");
  });

  it("counts the placebo errors' shared days in the degrees of freedom", () => {
    // One placebo error: one degree of freedom; independent ones (m large against none shared) approach their count.
    close(placeboDegreesOfFreedom(1, 2), 1);
    assert.ok(placeboDegreesOfFreedom(5, 2) > 4 && placeboDegreesOfFreedom(5, 2) < 5);
  });
});
