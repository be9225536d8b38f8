import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import { assignmentsDuringRollouts, layersForServer, mergeLayers, type AssignmentTarget } from "./layers.js";

const assignment = (scope: AssignmentTarget["scope"], tag: string | null, serverId: string | null, name: string) => ({
  scope,
  tag,
  serverId,
  name,
});

test("a server's layers: organisation default, its tags in code-point order, then its own", () => {
  const assignments = [
    assignment("server", null, "s1", "own"),
    assignment("tag", "web", null, "web"),
    assignment("server", null, "s2", "other server"),
    assignment("tag", "db", null, "db"),
    assignment("tag", "Mail", null, "Mail"),
    assignment("tag", "unused", null, "unused"),
    assignment("organization", null, null, "default"),
  ];
  const layers = layersForServer({ id: "s1", tags: ["web", "db", "Mail"] }, assignments);
  assert.deepEqual(
    layers.map((l) => l.name),
    ["default", "Mail", "db", "web", "own"],
  );
});

test("later layers win field by field, and no layers at all gives the defaults", () => {
  const { result } = mergeLayers([
    { schemaVersion: 1, telemetry: { intervalSeconds: 30, ebpf: "off" } },
    { schemaVersion: 1, telemetry: { intervalSeconds: 5 } },
  ]);
  assert.ok(result.ok);
  assert.equal(result.policy.telemetry.intervalSeconds, 5);
  assert.equal(result.policy.telemetry.ebpf, "off");
  const empty = mergeLayers([]);
  assert.ok(empty.result.ok);
  assert.equal(empty.result.policy.readCache.enabled, false);
});

test("an invalid merge reports its problems with the merged document", () => {
  const { merged, result } = mergeLayers([{ schemaVersion: 1, telemetry: { intervalSeconds: 0 } }]);
  assert.equal(result.ok, false);
  assert.deepEqual(merged, { schemaVersion: 1, telemetry: { intervalSeconds: 0 } });
});

describe("assignments during a rollout", () => {
  const org = { scope: "organization" as const, tag: null, serverId: null, name: "v2" };
  const db = { scope: "tag" as const, tag: "db", serverId: null, name: "db" };
  const own = { scope: "server" as const, tag: null, serverId: "s1", name: "own v5" };

  it("merges a held slot's previous layer in place of the current one", () => {
    const held = [{ target: { scope: "organization" as const, tag: null, serverId: null }, previous: { ...org, name: "v1" } }];
    const layers = layersForServer({ id: "s1", tags: ["db"] }, assignmentsDuringRollouts([org, db, own], held));
    assert.deepEqual(
      layers.map((l) => l.name),
      ["v1", "db", "own v5"],
    );
  });

  it("drops a slot that had no layer before, and brings back one the change removed", () => {
    const heldNew = [{ target: { scope: "tag" as const, tag: "db", serverId: null }, previous: null }];
    assert.deepEqual(
      layersForServer({ id: "s1", tags: ["db"] }, assignmentsDuringRollouts([org, db], heldNew)).map((l) => l.name),
      ["v2"],
    );
    const heldRemoved = [{ target: { scope: "server" as const, tag: null, serverId: "s1" }, previous: { ...own, name: "own v4" } }];
    assert.deepEqual(
      layersForServer({ id: "s1", tags: [] }, assignmentsDuringRollouts([org], heldRemoved)).map((l) => l.name),
      ["v2", "own v4"],
    );
  });

  it("changes nothing without held slots, and keeps one layer per slot if two rollouts ever held one", () => {
    assert.deepEqual(assignmentsDuringRollouts([org, db], []), [org, db]);
    const target = { scope: "organization" as const, tag: null, serverId: null };
    const twice = assignmentsDuringRollouts(
      [org],
      [
        { target, previous: { ...org, name: "older" } },
        { target, previous: { ...org, name: "newer" } },
      ],
    );
    assert.deepEqual(
      twice.map((l) => l.name),
      ["older"],
    );
  });
});
