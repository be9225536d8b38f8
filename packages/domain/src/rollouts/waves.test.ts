import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { interleaveAcrossTags, planWaves, type PlannableServer } from "./waves.js";

const servers = (count: number, tags: (i: number) => string[]): PlannableServer[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    hostname: `h${i}`,
    tags: tags(i),
  }));

describe("wave planning", () => {
  it("takes a spread canary from the largest tag groups first, then cumulative percentages rounded up", () => {
    const fleet = servers(20, (i) => (i < 12 ? ["db"] : i < 18 ? ["web"] : []));
    const result = planWaves(fleet, { canary: { kind: "spread", count: 2 }, wavePercents: [25, 50, 100] }, "rollout-1");
    assert.ok(result.ok);
    const byId = new Map(fleet.map((s) => [s.id, s]));
    const [canary, ...rest] = result.waves;
    assert.deepEqual(
      canary!.serverIds.map((id) => byId.get(id)!.tags),
      [["db"], ["web"]],
    );
    assert.deepEqual(
      result.waves.map((w) => [w.label, w.serverIds.length]),
      [
        ["Canary", 2],
        ["25 %", 3],
        ["50 %", 5],
        ["100 %", 10],
      ],
    );
    // Every server exactly once.
    const all = result.waves.flatMap((w) => w.serverIds);
    assert.equal(new Set(all).size, 20);
    // A percentage wave interleaves the groups: 25 % (3 servers) holds db, web and untagged.
    assert.deepEqual(new Set(rest[0]!.serverIds.map((id) => byId.get(id)!.tags.join(","))), new Set(["db", "web", ""]));
  });

  it("is the same for the same rollout and different for another", () => {
    const fleet = servers(50, (i) => [i % 2 ? "a" : "b"]);
    const plan = { canary: { kind: "spread" as const, count: 3 }, wavePercents: [10, 100] };
    assert.deepEqual(planWaves(fleet, plan, "r1"), planWaves(fleet, plan, "r1"));
    assert.notDeepEqual(planWaves(fleet, plan, "r1"), planWaves(fleet, plan, "r2"));
  });

  it("leaves out a wave the canary already covers", () => {
    const fleet = servers(3, () => []);
    const result = planWaves(fleet, { canary: { kind: "spread", count: 1 }, wavePercents: [10, 50, 100] }, "r");
    assert.ok(result.ok);
    assert.deepEqual(
      result.waves.map((w) => [w.label, w.serverIds.length]),
      [
        ["Canary", 1],
        ["50 %", 1],
        ["100 %", 1],
      ],
    );
  });

  it("takes a tag canary and chosen servers, and refuses what the change does not reach", () => {
    const fleet = servers(6, (i) => (i < 2 ? ["canary", "db"] : ["db"]));
    const tagged = planWaves(fleet, { canary: { kind: "tag", tag: "canary" }, wavePercents: [100] }, "r");
    assert.ok(tagged.ok);
    assert.deepEqual(new Set(tagged.waves[0]!.serverIds), new Set([fleet[0]!.id, fleet[1]!.id]));
    assert.equal(tagged.waves[1]!.serverIds.length, 4);

    const chosen = planWaves(fleet, { canary: { kind: "servers", serverIds: [fleet[5]!.id] }, wavePercents: [100] }, "r");
    assert.ok(chosen.ok);
    assert.deepEqual(chosen.waves[0]!.serverIds, [fleet[5]!.id]);

    const missingTag = planWaves(fleet, { canary: { kind: "tag", tag: "nope" }, wavePercents: [100] }, "r");
    assert.deepEqual(missingTag, {
      ok: false,
      message: 'No server the change reaches carries the tag "nope"; tag a few representative servers, or pick the canary another way.',
    });
    const outside = planWaves(
      fleet,
      { canary: { kind: "servers", serverIds: ["00000000-0000-4000-8000-999999999999"] }, wavePercents: [100] },
      "r",
    );
    assert.equal(outside.ok, false);
  });

  it("plans nothing when no server changes", () => {
    assert.deepEqual(planWaves([], { canary: { kind: "spread", count: 1 }, wavePercents: [100] }, "r"), { ok: true, waves: [] });
  });

  it("interleaves one of each group before a second of any", () => {
    const fleet = servers(5, (i) => (i < 3 ? ["x"] : ["y"]));
    assert.deepEqual(
      interleaveAcrossTags(fleet, "s").map((s) => s.tags[0]),
      ["x", "y", "x", "y", "x"],
    );
  });
});
