import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePolicyText } from "./parse.js";
import { ruleProblemCodes, structuralProblemCodes } from "./problems.js";
import { invalidVector, loadVectors, policyText, validVector } from "./testing/vectors.js";

const validVectors = loadVectors("valid", validVector);
const invalidVectors = loadVectors("invalid", invalidVector);

describe("valid vectors", () => {
  for (const { name, vector } of validVectors) {
    it(`${name}: ${vector.description}`, () => {
      const result = parsePolicyText(policyText(vector));
      assert.ok(result.ok, `expected a valid policy, got ${JSON.stringify(result.ok ? null : result.problems)}`);
      assert.deepEqual(result.policy, vector.normalised);
    });
  }
});

describe("invalid vectors", () => {
  for (const { name, vector } of invalidVectors) {
    it(`${name}: ${vector.description}`, () => {
      const result = parsePolicyText(policyText(vector));
      assert.ok(!result.ok, "expected problems, the policy was accepted");
      assert.deepEqual(
        result.problems.map(({ path, code }) => ({ path, code })),
        vector.errors,
      );
      for (const problem of result.problems) {
        assert.ok(problem.message.length > 10, `${problem.path} ${problem.code} needs a message a person can act on`);
      }
    });
  }

  it("cover every problem code", () => {
    const covered = new Set(invalidVectors.flatMap(({ vector }) => vector.errors.map((error) => error.code)));
    const uncovered = [...structuralProblemCodes, ...ruleProblemCodes].filter((code) => !covered.has(code));
    assert.deepEqual(uncovered, []);
  });
});
