import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mergePolicies } from "./merge.js";
import { parsePolicy, validatePolicyLayer } from "./parse.js";
import type { PolicyDocument } from "./schema.js";
import { loadVectors, mergeVector } from "./testing/vectors.js";

describe("merge vectors", () => {
  for (const { name, vector } of loadVectors("merge", mergeVector)) {
    it(`${name}: ${vector.description}`, () => {
      const layers = vector.layers.map((layer) => {
        const checked = validatePolicyLayer(layer);
        assert.ok(checked.ok, `each layer must be well-formed: ${JSON.stringify(checked.ok ? null : checked.problems)}`);
        return checked.layer;
      });
      const [orgDefault, ...overrides] = layers as [PolicyDocument, ...PolicyDocument[]];
      const merged = mergePolicies(orgDefault, ...overrides);
      assert.deepEqual(merged, vector.merged);
      const effective = parsePolicy(merged);
      if (vector.errors === undefined) {
        assert.ok(effective.ok, JSON.stringify(effective.ok ? null : effective.problems));
        assert.deepEqual(effective.policy, vector.normalised);
      } else {
        assert.ok(!effective.ok);
        assert.deepEqual(
          effective.problems.map(({ path, code }) => ({ path, code })),
          vector.errors,
        );
      }
    });
  }
});

describe("mergePolicies", () => {
  it("does not share or change its inputs", () => {
    const org: PolicyDocument = { schemaVersion: 1, readCache: { include: ["/srv/**"] } };
    const server: PolicyDocument = { schemaVersion: 1, readCache: { exclude: ["/srv/tmp"] } };
    const merged = mergePolicies(org, server);
    merged.readCache?.include?.push("/other");
    assert.deepEqual(org, { schemaVersion: 1, readCache: { include: ["/srv/**"] } });
    assert.deepEqual(server, { schemaVersion: 1, readCache: { exclude: ["/srv/tmp"] } });
  });

  it("treats a field set to undefined as absent", () => {
    const org: PolicyDocument = { schemaVersion: 1, readCache: { budgetBytes: 1 << 30 } };
    const merged = mergePolicies(org, { schemaVersion: 1, readCache: { budgetBytes: undefined } });
    assert.equal(merged.readCache?.budgetBytes, 1 << 30);
  });

  it("checks a layer for shape only, so a server layer may pin what a group enables", () => {
    assert.ok(validatePolicyLayer({ schemaVersion: 1, readCache: { pin: ["/srv/a"] } }).ok);
    const bad = validatePolicyLayer({ schemaVersion: 1, readCache: { pin: ["srv/a"] } });
    assert.deepEqual(bad.ok ? [] : bad.problems.map((problem) => problem.code), ["not_absolute_path"]);
  });
});
