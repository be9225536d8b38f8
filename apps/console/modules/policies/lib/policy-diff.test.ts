import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatPolicyJson } from "./display-order";
import { diffPolicyDocuments } from "./policy-diff";

describe("policy diff", () => {
  it("lists added, removed and changed fields by path, lists as one value", () => {
    const before = {
      schemaVersion: 1,
      readCache: { enabled: true, include: ["/a"], budgetBytes: 8589934592 },
      telemetry: { ebpf: "auto" },
    };
    const after = {
      schemaVersion: 1,
      readCache: { enabled: true, include: ["/a", "/b"], prefetch: true },
      writeOptimization: { enabled: true },
    };
    assert.deepEqual(diffPolicyDocuments(before, after), [
      { path: "readCache.include", kind: "changed", before: ["/a"], after: ["/a", "/b"] },
      { path: "readCache.prefetch", kind: "added", after: true },
      { path: "readCache.budgetBytes", kind: "removed", before: 8589934592 },
      { path: "writeOptimization.enabled", kind: "added", after: true },
      { path: "telemetry.ebpf", kind: "removed", before: "auto" },
    ]);
  });

  it("finds nothing between documents that differ only in key order", () => {
    const a = { schemaVersion: 1, writeOptimization: { preallocation: [{ pattern: "/x/*", chunkBytes: 1048576 }], enabled: true } };
    const b = { writeOptimization: { enabled: true, preallocation: [{ chunkBytes: 1048576, pattern: "/x/*" }] }, schemaVersion: 1 };
    assert.deepEqual(diffPolicyDocuments(a, b), []);
  });

  it("treats null as a value: setting a cap to null is a change", () => {
    assert.deepEqual(
      diffPolicyDocuments({ schemaVersion: 1, readCache: { budgetBytes: 1 } }, { schemaVersion: 1, readCache: { budgetBytes: null } }),
      [{ path: "readCache.budgetBytes", kind: "changed", before: 1, after: null }],
    );
  });

  it("prints JSON in the schema's field order whatever order jsonb kept", () => {
    const stored = { telemetry: { ebpf: "off" }, readCache: { prefetch: true, enabled: true }, schemaVersion: 1, extra: 1 };
    assert.equal(
      formatPolicyJson(stored),
      JSON.stringify({ schemaVersion: 1, readCache: { enabled: true, prefetch: true }, telemetry: { ebpf: "off" }, extra: 1 }, null, 2),
    );
  });
});
