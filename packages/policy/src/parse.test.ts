import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePolicy, parsePolicyText } from "./parse.js";
import { describeProblems } from "./problems.js";

function problemsOf(input: unknown) {
  const result = parsePolicy(input);
  assert.ok(!result.ok, "expected the policy to be refused");
  return result.problems;
}

describe("problem messages", () => {
  it("quote byte limits in binary units with the exact number", () => {
    const [problem] = problemsOf({ schemaVersion: 1, readCache: { budgetBytes: 1024 } });
    assert.equal(problem?.message, "must be at least 16 MiB (16777216)");
  });

  it("name the type that was found", () => {
    const [problem] = problemsOf({ schemaVersion: 1, readCache: { enabled: "true" } });
    assert.equal(problem?.message, "must be a boolean, not a string");
  });

  it("read as one line per problem, prefixed by the path", () => {
    const problems = problemsOf({ schemaVersion: 1, readCache: { enabled: true, pin: ["/srv/a"] } });
    assert.equal(
      describeProblems(problems),
      'readCache.include: the read cache is enabled but manages no files: add at least one pattern, e.g. "/var/lib/postgresql/**"',
    );
  });

  it("say why JSON text is not a policy", () => {
    const result = parsePolicyText("{");
    assert.ok(!result.ok);
    assert.match(result.problems[0]?.message ?? "", /^is not valid JSON: /);
  });
});
