import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeMeasured } from "./measured.js";
import { readsServed } from "./reads.js";
import type { StorageReadSums } from "./storage.js";
import { memoryReadLatencySeconds } from "./time-saved.js";

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
    assert.deepEqual(
      reads.basis.map((input) => input.samples),
      [360, 1000],
    );
  });

  it("is not measured when the agent sent no hits, and says why", () => {
    const reads = readsServed({ hitsBytes: null, missesBytes: 100, samples: 3 }, storage);
    assert.equal(reads.status, "not-measured");
    assert.match(describeMeasured(reads), /^not measured: .*eBPF/);
  });
});

describe("memoryReadLatencySeconds", () => {
  it("is the calibrated mean with the timed reads it rests on", () => {
    const latency = memoryReadLatencySeconds(memory);
    assert.equal(latency.status === "measured" && latency.value, 2e-6);
    assert.equal(
      describeMeasured(latency),
      "measured: memory read latency: agent's timed 4 KiB page-cache reads (read_cache), 4,096 timed reads, counted once per interval",
    );
  });

  it("is not measured when never sent, never zero", () => {
    const latency = memoryReadLatencySeconds({ meanSeconds: null, timedReads: null });
    assert.equal(latency.status, "not-measured");
    assert.match(describeMeasured(latency), /memory-read latency/);
  });
});
