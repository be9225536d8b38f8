import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { logGamma, regularisedBeta, studentTCritical, studentTTwoSidedP, tInterval } from "./student-t.js";

const close = (actual: number, expected: number, tolerance: number) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not within ${tolerance} of ${expected}`);

describe("Student's t", () => {
  it("matches the printed tables' critical values", () => {
    // Two-sided 5 %: df 1, 2, 4, 6, 10, 30; two-sided 1 % at df 6; 0.1 % at df 20.
    close(studentTCritical(0.05, 1), 12.7062, 1e-4);
    close(studentTCritical(0.05, 2), 4.3027, 1e-4);
    close(studentTCritical(0.05, 4), 2.7764, 1e-4);
    close(studentTCritical(0.05, 6), 2.4469, 1e-4);
    close(studentTCritical(0.05, 10), 2.2281, 1e-4);
    close(studentTCritical(0.05, 30), 2.0423, 1e-4);
    close(studentTCritical(0.01, 6), 3.7074, 1e-4);
    close(studentTCritical(0.001, 20), 3.8495, 1e-4);
  });

  it("gives p-values that invert the critical values, and fractional degrees of freedom", () => {
    close(studentTTwoSidedP(2.4469, 6), 0.05, 1e-5);
    close(studentTTwoSidedP(0, 6), 1, 1e-12);
    close(studentTTwoSidedP(-2.2281, 10), 0.05, 1e-5);
    assert.equal(studentTTwoSidedP(Infinity, 3), 0);
    assert.equal(studentTTwoSidedP(NaN, 3), 1);
    const between = studentTCritical(0.05, 4.5);
    assert.ok(between < studentTCritical(0.05, 4) && between > studentTCritical(0.05, 5));
  });

  it("rests on a correct log-gamma and incomplete beta", () => {
    close(logGamma(5), Math.log(24), 1e-12);
    close(logGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-12);
    // I_x(1, 1) = x; I_x(2, 3) = 1 − (1 − x)^3 (1 + 3x) at x = 0.4.
    close(regularisedBeta(0.3, 1, 1), 0.3, 1e-12);
    close(regularisedBeta(0.4, 2, 3), 1 - 0.6 ** 3 * (1 + 3 * 0.4), 1e-12);
  });

  it("builds an interval around the estimate and refuses nonsense", () => {
    const interval = tInterval(1, 0.5, 6, 0.95);
    close(interval.low, 1 - 2.4469 * 0.5, 1e-4);
    close(interval.high, 1 + 2.4469 * 0.5, 1e-4);
    assert.throws(() => studentTCritical(0, 6), /alpha/);
    assert.throws(() => studentTCritical(0.05, 0), /degrees of freedom/);
  });
});
