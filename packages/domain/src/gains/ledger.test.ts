import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fleetLedger, serverLedger, type ServerGainsSums } from "./ledger.js";

const gib = 1024 ** 3;
const full: ServerGainsSums = {
  readCache: { hitsBytes: 40_960_000, missesBytes: 8_192_000, samples: 360 },
  storage: { devices: ["sda"], readBytes: 8_192_000, readOps: 1000, latencySumSeconds: 5, latencyOperations: 1000 },
  memoryLatency: { meanSeconds: 2e-6, timedReads: 4096 },
  writeOpt: {
    managedGrownBytes: 2 * gib, managedExtentsAdded: 10, unmanagedGrownBytes: gib, unmanagedExtentsAdded: 50, samples: 360,
    filesDefragmented: 3, preallocatedBytes: 64 * 2 ** 20,
  },
};
const readCacheOnly: ServerGainsSums = {
  ...full,
  memoryLatency: { meanSeconds: 4e-6, timedReads: 100 },
  writeOpt: { managedGrownBytes: null, managedExtentsAdded: null, unmanagedGrownBytes: null, unmanagedExtentsAdded: null, samples: 0, filesDefragmented: null, preallocatedBytes: null },
};

const values = (lines: ReturnType<typeof serverLedger>) =>
  Object.fromEntries(lines.map((line) => [line.key, line.effect.status === "measured" ? line.effect.value : line.effect.status]));

describe("serverLedger", () => {
  it("has one line per effect with its measured value", () => {
    const lines = serverLedger(full);
    const byKey = values(lines);
    assert.equal(byKey.bytesFromMemory, 40_960_000);
    assert.equal(byKey.storageIosSaved, 5000);
    assert.ok(Math.abs((byKey.storageTimeSaved as number) - 24.98) < 1e-9);
    assert.equal(byKey.fragmentsPrevented, 90);
    assert.equal(byKey.filesDefragmented, 3);
    assert.equal(byKey.preallocatedBytes, 64 * 2 ** 20);
    assert.ok(lines.every((line) => line.effect.status === "measured" && line.effect.basis.length > 0), "every measured line has a basis");
  });

  it("marks write-optimisation lines not measured when the agent sent none", () => {
    const byKey = values(serverLedger(readCacheOnly));
    assert.equal(byKey.fragmentsPrevented, "not-measured");
    assert.equal(byKey.filesDefragmented, "not-measured");
    assert.equal(byKey.preallocatedBytes, "not-measured");
  });
});

describe("fleetLedger", () => {
  it("adds the servers where a line is measured and names the others", () => {
    const fleet = fleetLedger([
      { server: "db01", lines: serverLedger(full) },
      { server: "db02", lines: serverLedger(readCacheOnly) },
    ]);
    const byKey = values(fleet);
    // db02: 5,000 × 5 ms − 10,000 × 4 µs = 24.96 s, plus db01's 24.98 s.
    assert.ok(Math.abs((byKey.storageTimeSaved as number) - 49.94) < 1e-9);
    assert.equal(byKey.bytesFromMemory, 81_920_000);
    assert.equal(byKey.filesDefragmented, 3);
    const defragmented = fleet.find((line) => line.key === "filesDefragmented")!;
    assert.deepEqual(defragmented.notMeasuredOn?.map((entry) => entry.server), ["db02"]);
    assert.equal(defragmented.effect.status === "measured" && defragmented.effect.basis[0]!.source, "db01");
  });

  it("is not measured anywhere for an empty fleet", () => {
    const fleet = fleetLedger([]);
    assert.ok(fleet.length > 0 && fleet.every((line) => line.effect.status === "not-measured"));
  });
});
