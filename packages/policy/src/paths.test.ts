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
