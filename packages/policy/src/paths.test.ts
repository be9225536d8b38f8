import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isManagedPath, literalPrefix, matchesPattern, pathProblem } from "./paths.js";
import { loadVectorFile, pathMatchingVectors } from "./testing/vectors.js";

const vectors = loadVectorFile("path-matching.json", pathMatchingVectors);

describe("matchesPattern (shared vectors)", () => {
  for (const { pattern, path, matches } of vectors.patterns) {
    it(`${pattern} ${matches ? "matches" : "does not match"} ${path}`, () => {
      assert.equal(pathProblem(pattern, "glob"), null, "vector patterns must be valid");
      assert.equal(matchesPattern(pattern, path), matches);
    });
  }
});

describe("isManagedPath (shared vectors)", () => {
  for (const { include, exclude, path, managed } of vectors.managed) {
    it(`${path} with include ${JSON.stringify(include)} exclude ${JSON.stringify(exclude)}`, () => {
      assert.equal(isManagedPath({ include, exclude }, path), managed);
    });
  }
});

describe("literalPrefix", () => {
  it("stops at the first segment with a wildcard", () => {
    assert.equal(literalPrefix("/srv/pg/base/*/x"), "/srv/pg/base");
    assert.equal(literalPrefix("/**"), "/");
    assert.equal(literalPrefix("D:/SQL/db[0-9]"), "D:/SQL");
    assert.equal(literalPrefix("/srv/pg"), "/srv/pg");
  });
});

describe("pathProblem", () => {
  it("accepts roots and refuses wildcards in plain paths", () => {
    assert.equal(pathProblem("/", "plain"), null);
    assert.equal(pathProblem("C:/", "plain"), null);
    assert.equal(pathProblem("/srv/a]b", "plain"), null);
    assert.equal(pathProblem("/srv/*", "plain"), "glob_not_allowed");
  });

  it("counts the length limit in bytes of UTF-8, not characters", () => {
    assert.equal(pathProblem(`/${"é".repeat(2047)}`, "plain"), null);
    assert.equal(pathProblem(`/${"é".repeat(2048)}`, "plain"), "path_too_long");
  });
});

describe("matchesPattern work bound", () => {
  // Every shared vector, including the adversarial ones the old backtracking matcher took tens
  // of seconds on (billions of steps), must finish within (pattern + 2) × (path + 2) steps.
  for (const { pattern, path } of vectors.patterns) {
    it(`is linear for ${pattern.slice(0, 40)} against ${path.slice(0, 40)}`, () => {
      const counter = { steps: 0 };
      matchesPattern(pattern, path, counter);
      const bound = (Array.from(pattern).length + 2) * (Array.from(path).length + 2);
      assert.ok(counter.steps <= bound, `${counter.steps} steps, bound ${bound}`);
    });
  }
});

describe("pattern complexity bounds", () => {
  it("accepts 8 globstars and 32 wildcards, refuses one more of either", () => {
    assert.equal(pathProblem(`/${Array(8).fill("**").join("/")}`, "glob"), null);
    assert.equal(pathProblem(`/${Array(9).fill("**").join("/")}`, "glob"), "glob_too_complex");
    assert.equal(pathProblem(`/srv/${"?".repeat(16)}/${"[a-z]*".repeat(8)}`, "glob"), null);
    assert.equal(pathProblem(`/srv/${"?".repeat(17)}/${"[a-z]*".repeat(8)}`, "glob"), "glob_too_complex");
  });
});
