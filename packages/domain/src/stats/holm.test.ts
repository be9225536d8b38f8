import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { holm } from "./holm.js";

describe("Holm's step-down correction", () => {
  it("tests the smallest p-value at alpha / m, the next at alpha / (m − 1), and stops at the first that fails", () => {
    // Sorted 0.001 (≤ 0.0125), 0.012 (≤ 0.0167), 0.03 (> 0.025: stop), 0.04 (not rejected though ≤ 0.05).
    const decisions = holm([0.03, 0.001, 0.04, 0.012], 0.05);
    assert.deepEqual(
      decisions.map((d) => d.rejected),
      [false, true, false, true],
    );
    assert.deepEqual(
      decisions.map((d) => d.testedAlpha),
      [0.025, 0.0125, 0.025, 0.05 / 3],
    );
    // Adjusted: 4 × 0.001, max(0.004, 3 × 0.012), max(0.036, 2 × 0.03), max(0.06, 0.04).
    const adjusted = decisions.map((d) => d.adjustedP);
    for (const [i, expected] of [0.06, 0.004, 0.06, 0.036].entries()) assert.ok(Math.abs(adjusted[i]! - expected) < 1e-12);
  });

  it("is the plain test for one metric and caps adjusted p-values at 1", () => {
    assert.deepEqual(holm([0.04], 0.05), [{ rejected: true, adjustedP: 0.04, testedAlpha: 0.05 }]);
    assert.deepEqual(
      holm([0.6, 0.7], 0.05).map((d) => d.adjustedP),
      [1, 1],
    );
    assert.deepEqual(holm([], 0.05), []);
  });
});
