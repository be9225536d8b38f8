import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addDiskIoSums, deriveDiskIo, type DiskIoSums } from "./derive.js";

const idle: DiskIoSums = {
  intervalSeconds: 10,
  readOps: 0,
  writeOps: 0,
  readBytes: 0,
  writeBytes: 0,
  readTimeMs: 0,
  writeTimeMs: 0,
  ioTimeMs: 0,
  weightedIoTimeMs: 0,
};

describe("deriveDiskIo", () => {
  it("turns one 10 s sample into rates, latency, queue depth and utilisation", () => {
    const rates = deriveDiskIo({
      ...idle,
      readOps: 1000,
      writeOps: 500,
      readBytes: 40_000_000,
      writeBytes: 20_000_000,
      readTimeMs: 2000,
      writeTimeMs: 4000,
      ioTimeMs: 5000,
      weightedIoTimeMs: 25_000,
    });
    assert.deepEqual(rates, {
      readIops: 100,
      writeIops: 50,
      readMegabytesPerSecond: 4,
      writeMegabytesPerSecond: 2,
      readLatencyMs: 2,
      writeLatencyMs: 8,
      queueDepth: 2.5,
      utilisationPercent: 50,
    });
  });

  it("weights latency by I/O count across samples, not by sample", () => {
    // 10 reads at 1 ms, then 990 reads at 11 ms: the mean of the two averages would be 6 ms,
    // the true average is (10 + 10890) / 1000 = 10.9 ms.
    const quiet = { ...idle, readOps: 10, readTimeMs: 10 };
    const busy = { ...idle, readOps: 990, readTimeMs: 10_890 };
    assert.equal(deriveDiskIo(addDiskIoSums(quiet, busy)).readLatencyMs, 10.9);
  });

  it("reports no latency, rather than zero, when no I/O completed", () => {
    const rates = deriveDiskIo(idle);
    assert.equal(rates.readLatencyMs, null);
    assert.equal(rates.writeLatencyMs, null);
    assert.equal(rates.readIops, 0);
    assert.equal(rates.utilisationPercent, 0);
  });

  it("caps utilisation at 100 % when io_time slightly exceeds the interval", () => {
    assert.equal(deriveDiskIo({ ...idle, ioTimeMs: 10_004 }).utilisationPercent, 100);
  });

  it("returns nulls for an empty interval instead of dividing by zero", () => {
    const rates = deriveDiskIo({ ...idle, intervalSeconds: 0, readOps: 5 });
    assert.equal(rates.readIops, null);
    assert.equal(rates.queueDepth, null);
    assert.equal(rates.utilisationPercent, null);
  });

  it("derives nothing from a counter that was not measured, and never reads it as zero", () => {
    const noTimes = { ...idle, readOps: 100, readTimeMs: null, ioTimeMs: null, weightedIoTimeMs: null };
    const rates = deriveDiskIo(noTimes);
    assert.equal(rates.readIops, 10);
    assert.equal(rates.readLatencyMs, null);
    assert.equal(rates.utilisationPercent, null);
    assert.equal(rates.queueDepth, null);
    // Adding buckets adds what was measured: an unmeasured side is absent, not 0.
    const added = addDiskIoSums(noTimes, { ...idle, readOps: 10, readTimeMs: 50 });
    assert.equal(added.readTimeMs, 50);
    assert.equal(addDiskIoSums(noTimes, noTimes).ioTimeMs, null);
  });
});
