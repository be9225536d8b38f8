// Property tests (fast-check): the schema, merge and hash must hold for any input, not only the
// vectors. Each property runs a bounded number of cases so `npm test` stays quick; raise
// FAST_CHECK_RUNS for a longer search on demand.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { canonicalJson, policyHash } from "./hash.js";
import { mergePolicies } from "./merge.js";
import { parsePolicy, parsePolicyText } from "./parse.js";
import { matchesPattern, pathProblem } from "./paths.js";
import { ruleProblemCodes, structuralProblemCodes } from "./problems.js";
import type { PolicyDocument } from "./schema.js";

const numRuns = Number(process.env.FAST_CHECK_RUNS ?? 300);
const known = new Set<string>([...structuralProblemCodes, ...ruleProblemCodes]);

/** Documents that look like policies: mostly right keys, sometimes wrong values. */
const patternArb = fc
  .array(fc.constantFrom("**", "*", "a*", "?", "[a-c]", "[!b]", "db", "a", "x*y"), { minLength: 0, maxLength: 5 })
  .map((segments) => `/${segments.join("/")}`);
const layerArb: fc.Arbitrary<PolicyDocument> = fc.record(
  {
    schemaVersion: fc.constant(1),
    readCache: fc.record(
      {
        enabled: fc.boolean(),
        include: fc.array(patternArb, { maxLength: 3 }),
        exclude: fc.array(patternArb, { maxLength: 3 }),
        budgetBytes: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2 ** 40 })),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    collection: fc.record({ intervalSeconds: fc.integer({ min: -5, max: 4000 }) }, { requiredKeys: [], noNullPrototype: true }),
  },
  { requiredKeys: ["schemaVersion"], noNullPrototype: true },
) as fc.Arbitrary<PolicyDocument>;

describe("policy schema properties", () => {
  it("any text parses or gives sorted problems with known codes, never a throw", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          layerArb.map((l) => JSON.stringify(l)),
        ),
        (text) => {
          const result = parsePolicyText(text);
          if (result.ok) return;
          assert.ok(result.problems.length > 0);
          for (const problem of result.problems) {
            assert.ok(known.has(problem.code), `unknown code ${problem.code}`);
            assert.ok(problem.message.length > 0);
          }
        },
      ),
      { numRuns },
    );
  });

  it("parsing is idempotent: an accepted policy parses to itself", () => {
    fc.assert(
      fc.property(layerArb, (layer) => {
        const first = parsePolicy(layer);
        if (!first.ok) return;
        const second = parsePolicy(JSON.parse(JSON.stringify(first.policy)));
        assert.ok(second.ok, JSON.stringify(second));
        assert.deepEqual(second.policy, first.policy);
      }),
      { numRuns },
    );
  });
});

describe("merge properties", () => {
  it("a single layer and an empty override leave the document as it is", () => {
    fc.assert(
      fc.property(layerArb, (layer) => {
        assert.deepEqual(mergePolicies(layer), layer);
        assert.deepEqual(mergePolicies(layer, { schemaVersion: 1 } as PolicyDocument), layer);
      }),
      { numRuns },
    );
  });

  it("merging is associative and the last layer's fields win", () => {
    fc.assert(
      fc.property(layerArb, layerArb, layerArb, (a, b, c) => {
        assert.deepEqual(mergePolicies(mergePolicies(a, b), c), mergePolicies(a, b, c));
        const merged = mergePolicies(a, b, c) as unknown as Record<string, Record<string, unknown>>;
        for (const [key, value] of Object.entries((c as Record<string, unknown>).readCache ?? {})) {
          assert.deepEqual(merged.readCache![key], value);
        }
      }),
      { numRuns },
    );
  });

  it("never changes its inputs", () => {
    fc.assert(
      fc.property(layerArb, layerArb, (a, b) => {
        const before = [structuredClone(a), structuredClone(b)];
        mergePolicies(a, b);
        assert.deepEqual([a, b], before);
      }),
      { numRuns },
    );
  });
});

describe("hash properties", () => {
  const shuffled = (value: unknown, seed: number): unknown => {
    if (Array.isArray(value)) return value.map((item) => shuffled(item, seed));
    if (value === null || typeof value !== "object") return value;
    const entries = Object.entries(value);
    const rotated = entries.slice(seed % (entries.length || 1)).concat(entries.slice(0, seed % (entries.length || 1)));
    return Object.fromEntries(rotated.reverse().map(([k, v]) => [k, shuffled(v, seed + 1)]));
  };

  it("is independent of key order and survives a JSON round trip", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        assert.equal(policyHash(shuffled(value, seed)), policyHash(value));
        const canonical = canonicalJson(value);
        assert.equal(canonicalJson(JSON.parse(canonical)), canonical);
      }),
      { numRuns },
    );
  });

  it("differs when a value differs", () => {
    fc.assert(
      fc.property(layerArb, fc.integer({ min: 1, max: 3600 }), (layer, interval) => {
        const a = { ...layer, collection: { intervalSeconds: interval } };
        const b = { ...layer, collection: { intervalSeconds: interval + 1 } };
        assert.notEqual(policyHash(a), policyHash(b));
      }),
      { numRuns },
    );
  });
});

describe("matcher properties", () => {
  /** The recursive definition, memoised so it stays polynomial. */
  function reference(pattern: string, path: string): boolean {
    const p = pattern
      .slice(1)
      .split("/")
      .filter((s) => s !== "");
    const s = path
      .slice(1)
      .split("/")
      .filter((x) => x !== "");
    const memo = new Map<string, boolean>();
    const segments = (pi: number, si: number): boolean => {
      const key = `${pi},${si}`;
      if (memo.has(key)) return memo.get(key)!;
      let v: boolean;
      if (pi === p.length) v = true;
      else if (p[pi] === "**") {
        v = false;
        for (let k = si; k <= s.length && !v; k++) v = segments(pi + 1, k);
      } else v = si < s.length && segment(p[pi]!, s[si]!) && segments(pi + 1, si + 1);
      memo.set(key, v);
      return v;
    };
    return segments(0, 0);
  }
  function segment(pattern: string, name: string): boolean {
    // Character classes in the generator are fixed strings; turn the glob into a RegExp.
    const source = pattern.replace(/\[!/g, "[^").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]");
    return new RegExp(`^${source}$`, "u").test(name);
  }
  const nameArb = fc
    .array(fc.constantFrom("a", "b", "c", "x", "y", "db", "aa"), { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join(""));
  const pathArb = fc.array(nameArb, { minLength: 1, maxLength: 6 }).map((names) => `/${names.join("/")}`);

  it("agrees with the recursive definition", () => {
    fc.assert(
      fc.property(patternArb, pathArb, (pattern, path) => {
        fc.pre(pathProblem(pattern, "glob") === null);
        assert.equal(matchesPattern(pattern, path), reference(pattern, path), `${pattern} against ${path}`);
      }),
      { numRuns: numRuns * 3 },
    );
  });
});
