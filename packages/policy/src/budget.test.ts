import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { effectiveReadCacheBudgetBytes } from "./budget.js";
import { parsePolicy } from "./parse.js";
import { budgetVectors, loadVectorFile } from "./testing/vectors.js";

describe("effectiveReadCacheBudgetBytes (shared vectors)", () => {
  for (const vector of loadVectorFile("effective-budget.json", budgetVectors).cases) {
    it(vector.description, () => {
      const parsed = parsePolicy({ schemaVersion: 1, readCache: vector.readCache });
      assert.ok(parsed.ok, JSON.stringify(parsed.ok ? null : parsed.problems));
      assert.equal(effectiveReadCacheBudgetBytes(parsed.policy.readCache, vector.memAvailableBytes), vector.budgetBytes);
    });
  }

  it("refuses a fractional MemAvailable rather than guess", () => {
    const parsed = parsePolicy({ schemaVersion: 1 });
    assert.ok(parsed.ok);
    assert.throws(() => effectiveReadCacheBudgetBytes(parsed.policy.readCache, 1.5), RangeError);
  });
});
