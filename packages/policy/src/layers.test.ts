import assert from "node:assert/strict";
import { test } from "node:test";
import { layersForServer, mergeLayers, type AssignmentTarget } from "./layers.js";

const assignment = (scope: AssignmentTarget["scope"], tag: string | null, serverId: string | null, name: string) =>
  ({ scope, tag, serverId, name });

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
  assert.deepEqual(layers.map((l) => l.name), ["default", "Mail", "db", "web", "own"]);
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
