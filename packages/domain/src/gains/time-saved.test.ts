import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeMeasured } from "./measured.js";
import { readsServed } from "./reads.js";
import type { StorageReadSums } from "./storage.js";
import { storageIosSaved, storageTimeSaved } from "./time-saved.js";

// Hand-computed case: 10,000 pages (40,960,000 B) hit in memory, 8,192,000 B missed; the device
// read 1,000 times 8 KiB at 5 ms each (5 s in the histogram); a memory read costs 2 µs.
const cache = { hitsBytes: 40_960_000, missesBytes: 8_192_000, samples: 360 };
const storage: StorageReadSums = { devices: ["sda"], readBytes: 8_192_000, readOps: 1000, latencySumSeconds: 5, latencyOperations: 1000 };
const memory = { meanSeconds: 2e-6, timedReads: 4096 };

describe("readsServed", () => {
  it("splits managed-file reads into memory and storage by bytes, operations and shares", () => {
    const reads = readsServed(cache, storage);
    assert.equal(reads.status, "measured");
    assert.equal(reads.value.memoryOperations, 10_000);
    assert.equal(reads.value.storageOperations, 1000, "8,192,000 B / 8 KiB mean read");
    assert.equal(reads.value.memoryShare, 40_960_000 / 49_152_000);
    assert.equal(reads.value.storageShare, 8_192_000 / 49_152_000);
    assert.deepEqual(reads.basis.map((input) => input.samples), [360, 1000]);
  });

  it("is not measured when the agent sent no hits, and says why", () => {
    const reads = readsServed({ hitsBytes: null, missesBytes: 100, samples: 3 }, storage);
    assert.equal(reads.status, "not-measured");
    assert.match(describeMeasured(reads), /^not measured: .*eBPF/);
  });
});

describe("storageTimeSaved", () => {
  it("multiplies saved I/Os by the storage latency and subtracts the memory reads' own time", () => {
    assert.deepEqual(storageIosSaved(cache, storage).status === "measured" && storageIosSaved(cache, storage).value, 5000);
    const saved = storageTimeSaved(cache, storage, memory);
    assert.equal(saved.status, "measured");
    // 5,000 × 5 ms − 10,000 × 2 µs = 25 s − 0.02 s
    assert.ok(Math.abs(saved.value.seconds - 24.98) < 1e-9, `${saved.value.seconds}`);
    assert.equal(saved.value.storageReadLatencySeconds, 0.005);
    assert.equal(saved.value.memoryReadLatencySeconds, 2e-6);
    assert.equal(
      describeMeasured(saved),
      "measured: read-cache hits and misses: eBPF per-file page-cache counters (read_cache), 360 intervals; " +
        "mean storage read size: diskstats (disk_io) on sda, 1,000 reads; " +
        "storage read latency: eBPF latency histogram (disk_latency) on sda, 1,000 reads; " +
        "memory read latency: agent's timed 4 KiB page-cache reads (read_cache), 4,096 timed reads, counted once per interval",
    );
  });

  it("is not measured without either latency, never zero", () => {
    const noHistogram = storageTimeSaved(cache, { ...storage, latencySumSeconds: null, latencyOperations: null }, memory);
    assert.equal(noHistogram.status, "not-measured");
    assert.match(noHistogram.reason, /read-latency histogram/);
    const noMemoryTiming = storageTimeSaved(cache, storage, { meanSeconds: null, timedReads: null });
    assert.equal(noMemoryTiming.status, "not-measured");
    assert.match(noMemoryTiming.reason, /memory-read latency/);
    const noStorageReads = storageTimeSaved(cache, { ...storage, readOps: 0, readBytes: 0 }, memory);
    assert.equal(noStorageReads.status, "not-measured");
    assert.match(noStorageReads.reason, /mean read size/);
  });
});
