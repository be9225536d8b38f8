import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HoldoutUnit } from "./caused-units.js";
import { drawVarianceNote, fleetLedger, serverLedger, type ServerGainsSums } from "./ledger.js";

const gib = 1024 ** 3;
const page = 4096;
// Twenty alike intervals: managed 900 page accesses / 90 misses, control 100 / 30 each, so the
// cache caused 18,000 × (0.3 − 0.1) = 3,600 pages saved: 1,800 reads of 8 KiB.
const unit: HoldoutUnit = {
  holdoutShare: 0.1,
  managedAccessedBytes: 900 * page,
  managedMissedBytes: 90 * page,
  controlAccessedBytes: 100 * page,
  controlMissedBytes: 30 * page,
};
const full: ServerGainsSums = {
  readCache: { hitsBytes: 40_960_000, missesBytes: 8_192_000, samples: 360 },
  holdout: { units: Array.from({ length: 20 }, () => unit), samples: 20, ownReadBytes: 2000 * page, ownPageHitBytes: 100 * page },
  storage: { devices: ["sda"], readBytes: 8_192_000, readOps: 1000, latencySumSeconds: 5, latencyOperations: 1000 },
  devices: [{ device: "sda", observedSeconds: 3600, readOps: 1000, writeOps: 0, busySeconds: 5 }],
  memoryLatency: { meanSeconds: 2e-6, timedReads: 4096 },
  writeOpt: {
    managedGrownBytes: 2 * gib,
    managedExtentsAdded: 10,
    unmanagedGrownBytes: gib,
    unmanagedExtentsAdded: 50,
    samples: 360,
    filesDefragmented: 3,
    preallocatedBytes: 64 * 2 ** 20,
  },
};
const readCacheOnly: ServerGainsSums = {
  ...full,
  memoryLatency: { meanSeconds: 4e-6, timedReads: 100 },
  writeOpt: {
    managedGrownBytes: null,
    managedExtentsAdded: null,
    unmanagedGrownBytes: null,
    unmanagedExtentsAdded: null,
    samples: 0,
    filesDefragmented: null,
    preallocatedBytes: null,
  },
};
// The same totals in 16 equal hash buckets (20 intervals each): the interval sees the draw.
const bucketed: ServerGainsSums = {
  ...full,
  holdout: {
    ...full.holdout,
    buckets: {
      counts: Array.from({ length: 16 }, (_, bucket) => ({
        bucket,
        managedAccessedBytes: (20 * 900 * page) / 16,
        managedMissedBytes: (20 * 90 * page) / 16,
        controlAccessedBytes: (20 * 100 * page) / 16,
        controlMissedBytes: (20 * 30 * page) / 16,
      })),
      intervals: 20,
    },
  },
};
const noControl: ServerGainsSums = { ...full, holdout: { units: [], samples: 0, ownReadBytes: null, ownPageHitBytes: null } };

const values = (lines: ReturnType<typeof serverLedger>) =>
  Object.fromEntries(lines.map((line) => [line.key, line.effect.status === "measured" ? line.effect.value : line.effect.status]));
const near = (actual: unknown, expected: number) =>
  assert.ok(typeof actual === "number" && Math.abs(actual - expected) < 1e-9, `${String(actual)} ≠ ${expected}`);

describe("serverLedger", () => {
  it("has one line per effect, each saying what kind of figure it is", () => {
    const lines = serverLedger(full);
    const byKey = values(lines);
    assert.equal(byKey.bytesFromMemory, 40_960_000);
    near(byKey.storageIosSaved, 1800);
    // 1,800 × (5 ms − 2 pages × 2 µs)
    near(byKey.storageTimeSaved, 8.9928);
    near(byKey.ownPageHits, 50);
    near(byKey.ownStorageReads, 1000);
    assert.equal(byKey.fragmentsPrevented, 90);
    assert.equal(byKey.filesDefragmented, 3);
    assert.equal(byKey.preallocatedBytes, 64 * 2 ** 20);
    assert.ok(
      lines.every((line) => line.effect.status === "measured" && line.effect.basis.length > 0),
      "every measured line has a basis",
    );
    const kinds = Object.fromEntries(lines.map((line) => [line.key, line.kind]));
    assert.deepEqual(kinds, {
      bytesFromMemory: "description",
      storageIosSaved: "caused",
      storageTimeSaved: "caused",
      ownPageHits: "lower-bound",
      ownStorageReads: "cost",
      fragmentsPrevented: "caused",
      filesDefragmented: "counter",
      preallocatedBytes: "counter",
    });
    const saved = lines.find((line) => line.key === "storageIosSaved")!;
    assert.match(saved.label, /\(caused\)$/);
    assert.ok(saved.interval && Math.abs(saved.interval.low - 1800) < 1e-9 && saved.interval.confidence === 0.95);
    assert.match(lines.find((line) => line.key === "bytesFromMemory")!.label, /managed files/);
  });

  it("never calls a page-cache hit a saving: without a control the caused lines are not measured while reads from memory stay", () => {
    const byKey = values(serverLedger(noControl));
    assert.equal(byKey.bytesFromMemory, 40_960_000);
    assert.equal(byKey.storageIosSaved, "not-measured");
    assert.equal(byKey.storageTimeSaved, "not-measured");
  });

  it("says on both caused read-cache lines when their interval omits the draw's variance (an agent without hash buckets)", () => {
    const note = (sums: ServerGainsSums, key: string) => serverLedger(sums).find((line) => line.key === key)!.note;
    assert.equal(note(full, "storageIosSaved"), drawVarianceNote);
    assert.equal(note(full, "storageTimeSaved"), drawVarianceNote);
    assert.equal(note(bucketed, "storageIosSaved"), undefined);
    assert.equal(note(bucketed, "storageTimeSaved"), undefined);
    const fleet = fleetLedger([
      { server: "db01", lines: serverLedger(full) },
      { server: "db02", lines: serverLedger(bucketed) },
    ]);
    assert.equal(fleet.find((line) => line.key === "storageIosSaved")!.note, `${drawVarianceNote} on db01`);
  });

  it("marks write-optimisation lines not measured when the agent sent none", () => {
    const byKey = values(serverLedger(readCacheOnly));
    assert.equal(byKey.fragmentsPrevented, "not-measured");
    assert.equal(byKey.filesDefragmented, "not-measured");
    assert.equal(byKey.preallocatedBytes, "not-measured");
  });
});

describe("fleetLedger", () => {
  it("adds the servers where a line is measured, their intervals end to end, and names the others", () => {
    const fleet = fleetLedger([
      { server: "db01", lines: serverLedger(full) },
      { server: "db02", lines: serverLedger(readCacheOnly) },
      { server: "db03", lines: serverLedger(noControl) },
    ]);
    const byKey = values(fleet);
    // db02: 1,800 × (5 ms − 2 × 4 µs) = 8.9856 s, plus db01's 8.9928 s.
    near(byKey.storageTimeSaved, 17.9784);
    near(byKey.storageIosSaved, 3600);
    const saved = fleet.find((line) => line.key === "storageIosSaved")!;
    assert.ok(saved.interval && Math.abs(saved.interval.low - 3600) < 1e-9 && Math.abs(saved.interval.high - 3600) < 1e-9);
    assert.deepEqual(
      saved.notMeasuredOn?.map((entry) => entry.server),
      ["db03"],
    );
    assert.equal(byKey.bytesFromMemory, 3 * 40_960_000);
    assert.equal(byKey.filesDefragmented, 6);
    const defragmented = fleet.find((line) => line.key === "filesDefragmented")!;
    assert.deepEqual(
      defragmented.notMeasuredOn?.map((entry) => entry.server),
      ["db02"],
    );
    assert.equal(defragmented.effect.status === "measured" && defragmented.effect.basis[0]!.source, "db01, db03");
  });

  it("is not measured anywhere for an empty fleet", () => {
    const fleet = fleetLedger([]);
    assert.ok(fleet.length > 0 && fleet.every((line) => line.effect.status === "not-measured"));
  });
});
