import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { policyHash } from "@spindle/policy/hash";
import type { EffectiveLayer, LayerSource } from "../types/policy";
import { computeEffectivePolicy } from "./effective-policy";

// The merge vectors of @spindle/policy, shared with the Go agent: the console's effective policy
// must give exactly their answers when their layers are organisation default → tags → server.
const vectorsDir = new URL("../../../../../packages/policy/vectors/merge/", import.meta.url);
interface MergeVector {
  description: string;
  layers: Record<string, unknown>[];
  normalised?: unknown;
  errors?: { path: string; code: string }[];
}
const vectors = readdirSync(vectorsDir)
  .filter((file) => file.endsWith(".json"))
  .map((file) => ({ file, vector: JSON.parse(readFileSync(new URL(file, vectorsDir), "utf8")) as MergeVector }));

function source(index: number, count: number): LayerSource {
  const scope = index === 0 ? "organization" : index === count - 1 ? "server" : "tag";
  return {
    scope,
    tag: scope === "tag" ? `tag-${index}` : null,
    policyId: `policy-${index}`,
    policyName: `layer ${index}`,
    version: index + 1,
  };
}

const asLayers = (documents: Record<string, unknown>[]): EffectiveLayer[] =>
  documents.map((document, index) => ({ source: source(index, documents.length), document }));

describe("effective policy", () => {
  it("finds the shared merge vectors", () => assert.ok(vectors.length >= 5, `only ${vectors.length} merge vectors`));

  for (const { file, vector } of vectors) {
    it(`${file}: ${vector.description}`, () => {
      const effective = computeEffectivePolicy(asLayers(vector.layers));
      if (vector.normalised !== undefined) {
        assert.ok(effective.ok, JSON.stringify(!effective.ok && effective.problems));
        assert.deepEqual(effective.policy, vector.normalised);
        assert.equal(effective.hash, policyHash(vector.normalised));
      } else {
        assert.ok(!effective.ok);
        assert.deepEqual(
          effective.problems.map(({ path, code }) => ({ path, code })),
          vector.errors,
        );
      }
    });
  }

  it("is every default when nothing is assigned", () => {
    const effective = computeEffectivePolicy([]);
    assert.ok(effective.ok);
    assert.equal(effective.policy.readCache.enabled, false);
    assert.equal(effective.policy.telemetry.intervalSeconds, 10);
    assert.ok(
      effective.fields.every((field) => field.source === null),
      "every value is a default",
    );
  });

  it("says which layer set each value: the last one that sets it, or the default", () => {
    const layers = asLayers([
      {
        schemaVersion: 1,
        readCache: { enabled: true, include: ["/srv/db/**"], budgetBytes: 8589934592 },
        telemetry: { intervalSeconds: 30 },
      },
      { schemaVersion: 1, readCache: { budgetBytes: null } },
      { schemaVersion: 1, telemetry: { intervalSeconds: 5, fragmentationScan: { paths: ["/srv/db"] } } },
    ]);
    const effective = computeEffectivePolicy(layers);
    assert.ok(effective.ok);
    const setBy = Object.fromEntries(effective.fields.map((field) => [field.path, field.source?.scope ?? "default"]));
    assert.equal(setBy["readCache.enabled"], "organization");
    assert.equal(setBy["readCache.include"], "organization");
    assert.equal(setBy["readCache.budgetBytes"], "tag", "null from a later layer removes the cap and is its value");
    assert.equal(setBy["readCache.prefetch"], "default");
    assert.equal(setBy["telemetry.intervalSeconds"], "server");
    assert.equal(setBy["telemetry.fragmentationScan.paths"], "server");
    assert.equal(setBy["telemetry.fragmentationScan.periodSeconds"], "default");
    assert.equal(setBy.schemaVersion, "server");
    const budget = effective.fields.find((field) => field.path === "readCache.budgetBytes");
    assert.equal(budget?.value, null);
    assert.equal(budget?.source?.tag, "tag-1");
  });

  it("reports the merged result's problems and still shows where values came from", () => {
    const effective = computeEffectivePolicy(
      asLayers([
        { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/db/**"] } },
        { schemaVersion: 1, readCache: { pin: ["/srv/other"] } },
      ]),
    );
    assert.ok(!effective.ok);
    assert.deepEqual(
      effective.problems.map(({ path, code }) => [path, code]),
      [["readCache.pin[0]", "pin_not_included"]],
    );
    assert.equal(effective.fields.find((field) => field.path === "readCache.pin")?.source?.scope, "server");
  });

  it("hashes equal policies equally, whichever layers produced them", () => {
    const inOne = computeEffectivePolicy(asLayers([{ schemaVersion: 1, telemetry: { ebpf: "off", intervalSeconds: 20 } }]));
    const inTwo = computeEffectivePolicy(
      asLayers([
        { schemaVersion: 1, telemetry: { intervalSeconds: 20 } },
        { schemaVersion: 1, telemetry: { ebpf: "off" } },
      ]),
    );
    assert.ok(inOne.ok && inTwo.ok);
    assert.equal(inOne.hash, inTwo.hash);
    const other = computeEffectivePolicy(asLayers([{ schemaVersion: 1, telemetry: { intervalSeconds: 21, ebpf: "off" } }]));
    assert.ok(other.ok);
    assert.notEqual(other.hash, inOne.hash);
  });

  it("hashes the worked example of docs/policy.md to the value the docs quote", () => {
    const worked = vectors.find(({ file }) => file === "postgres-worked-example.json");
    assert.ok(worked, "the worked-example merge vector exists");
    const effective = computeEffectivePolicy(asLayers(worked.vector.layers));
    assert.ok(effective.ok);
    assert.equal(effective.hash, "19e390e00adef35d79715b906b0188a0d9e7cae9ed916b2b31562f9944645591");
  });
});
