import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { causedStorageReads, causedTimeSaved, ownPageHitsSaved, ownStorageReads } from "./caused-time.js";
import type { HoldoutSums, HoldoutUnit } from "./caused-units.js";
import { describeMeasured } from "./measured.js";
import type { StorageReadSums } from "./storage.js";

const page = 4096;
// Twenty alike intervals: 3,600 pages saved exactly (caused-reads.test.ts, first case).
const unit: HoldoutUnit = {
  holdoutShare: 0.1,
  managedAccessedBytes: 900 * page,
  managedMissedBytes: 90 * page,
  controlAccessedBytes: 100 * page,
  controlMissedBytes: 30 * page,
};
const holdout: HoldoutSums = {
  units: Array.from({ length: 20 }, () => unit),
  samples: 20,
  ownReadBytes: 2000 * page,
  ownPageHitBytes: 100 * page,
};
// The devices read 8 KiB at a time at 5 ms; a memory read costs 2 µs.
const storage: StorageReadSums = { devices: ["sda"], readBytes: 8_192_000, readOps: 1000, latencySumSeconds: 5, latencyOperations: 1000 };
const memory = { meanSeconds: 2e-6, timedReads: 4096 };
const idleDevice = [{ device: "sda", observedSeconds: 3600, readOps: 1000, writeOps: 0, busySeconds: 5 }];

describe("causedStorageReads", () => {
  it("turns caused pages into storage reads at the mean read size", () => {
    const reads = causedStorageReads(holdout, storage, idleDevice);
    assert.equal(reads.status, "measured", describeMeasured(reads));
    if (reads.status !== "measured") return;
    // 3,600 pages × 4 KiB / 8 KiB = 1,800 reads; the interval is a point (all intervals alike).
    assert.ok(Math.abs(reads.value.savedIos - 1800) < 1e-9);
    assert.ok(Math.abs(reads.value.interval.low - 1800) < 1e-9 && Math.abs(reads.value.interval.high - 1800) < 1e-9);
    assert.equal(reads.value.capped, false);
  });

  it("never credits more than the devices could have served in the range", () => {
    // Busy 9.9 s of 10 s for 1,000 I/Os: 101 I/Os per busy second, 0.1 s spare → about 10.1 more reads, not 1,800.
    const busy = [{ device: "sda", observedSeconds: 10, readOps: 1000, writeOps: 0, busySeconds: 9.9 }];
    const reads = causedStorageReads(holdout, storage, busy);
    assert.equal(reads.status, "measured");
    if (reads.status !== "measured") return;
    assert.ok(Math.abs(reads.value.savedIos - (0.1 * 1000) / 9.9) < 1e-9, `${reads.value.savedIos}`);
    assert.ok(reads.value.interval.high <= reads.value.spareIos);
    assert.equal(reads.value.capped, true);
  });
});

describe("causedTimeSaved", () => {
  it("weighs each saved read's storage latency against its pages read from memory", () => {
    const time = causedTimeSaved(causedStorageReads(holdout, storage, idleDevice), storage, memory);
    assert.equal(time.status, "measured", describeMeasured(time));
    if (time.status !== "measured") return;
    // 1,800 × (5 ms − 2 pages × 2 µs) = 1,800 × 4.996 ms = 8.9928 s
    assert.ok(Math.abs(time.value.seconds - 8.9928) < 1e-9, `${time.value.seconds}`);
    assert.ok(Math.abs(time.value.interval.low - 8.9928) < 1e-9 && Math.abs(time.value.interval.high - 8.9928) < 1e-9);
  });

  it("is not measured without either latency", () => {
    const reads = causedStorageReads(holdout, storage, idleDevice);
    assert.match(
      describeMeasured(causedTimeSaved(reads, { ...storage, latencyOperations: null, latencySumSeconds: null }, memory)),
      /latency histogram/,
    );
    assert.match(describeMeasured(causedTimeSaved(reads, storage, { meanSeconds: null, timedReads: null })), /memory-read latency/);
  });
});

describe("the cache's own pages", () => {
  it("counts first hits on pages it brought in as reads, a lower bound, and its own reads as a cost", () => {
    assert.equal(ownPageHitsSaved(holdout, storage).status === "measured" && ownPageHitsSaved(holdout, storage).value, 50);
    assert.equal(ownStorageReads(holdout, storage).status === "measured" && ownStorageReads(holdout, storage).value, 1000);
    assert.match(describeMeasured(ownPageHitsSaved({ ...holdout, ownPageHitBytes: null }, storage)), /eBPF/);
  });
});
