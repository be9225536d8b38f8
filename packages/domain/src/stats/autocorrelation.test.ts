import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { effectiveSampleSize, integratedAutocorrelationTime } from "./autocorrelation.js";
import { median } from "./median.js";
import { normalSource, seededRandom } from "./random.js";

function ar1(phi: number, n: number, seed: number): Float64Array {
  const normal = normalSource(seededRandom(seed));
  const values = new Float64Array(n);
  let x = normal() / Math.sqrt(1 - phi * phi);
  for (let i = 0; i < n; i++) {
    x = phi * x + normal();
    values[i] = x;
  }
  return values;
}

describe("effective sample size", () => {
  it("is about n for independent values and about n (1 − φ) / (1 + φ) for AR(1)", () => {
    const n = 20_000;
    assert.ok(Math.abs(integratedAutocorrelationTime(ar1(0, n, 1)) - 1) < 0.15);
    // τ = (1 + φ) / (1 − φ): 3 for φ = 0.5, 9 for φ = 0.8.
    assert.ok(Math.abs(integratedAutocorrelationTime(ar1(0.5, n, 2)) - 3) < 0.45);
    assert.ok(Math.abs(integratedAutocorrelationTime(ar1(0.8, n, 3)) - 9) < 1.5);
    assert.ok(Math.abs(effectiveSampleSize(ar1(0.8, n, 3)) - n / 9) < n / 40);
  });

  it("treats constant or tiny series as independent", () => {
    assert.equal(integratedAutocorrelationTime([5, 5, 5, 5, 5]), 1);
    assert.equal(integratedAutocorrelationTime([1, 2]), 1);
  });
});

describe("median", () => {
  it("selects the middle without sorting the input", () => {
    const values = [5, 1, 4, 2, 3];
    assert.equal(median(values), 3);
    assert.deepEqual(values, [5, 1, 4, 2, 3]);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.ok(Number.isNaN(median([])));
    const random = seededRandom(9);
    const many = Array.from({ length: 10_001 }, random);
    assert.equal(median(many), [...many].sort((a, b) => a - b)[5000]);
  });
});
