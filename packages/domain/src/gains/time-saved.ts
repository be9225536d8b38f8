// Storage I/Os and storage time the read cache saved, per the gains contract:
//   storage I/Os saved = hits_bytes / mean storage read size (disk_io read_bytes / read_ops)
//   time saved = I/Os saved × mean storage read latency (eBPF disk_latency, reads)
//                − (hits_bytes / 4096) × memory_read_latency_seconds
// Both latencies are measured on the host: the storage one by the block-layer histogram, the
// memory one by the agent's calibrated timing of resident-page reads.
import { isPresent, measured, notMeasured, type MaybeNumber, type Measured } from "./measured.js";
import { pageBytes, readCacheBasis, type ReadCacheSums } from "./reads.js";
import { meanStorageReadBytes, meanStorageReadLatencySeconds, type StorageReadSums } from "./storage.js";

export interface MemoryReadLatency {
  /** Mean seconds of one 4 KiB page-cache read, weighted by timed reads; null when never sent. */
  meanSeconds: MaybeNumber;
  /**
   * Timed reads behind the mean, summed over the intervals that carried a measurement (the
   * storage's weight column). The agent re-sends its latest measurement every interval, so one
   * calibration run is counted once per interval it was sent in, and the basis says so.
   */
  timedReads: MaybeNumber;
}

export function memoryReadLatencySeconds(memory: MemoryReadLatency): Measured<number> {
  if (!isPresent(memory.meanSeconds) || !isPresent(memory.timedReads) || memory.timedReads <= 0) {
    return notMeasured("the agent sent no memory-read latency in this range (its page-cache read timing)");
  }
  return measured(memory.meanSeconds, [
    { label: "memory read latency", source: "agent's timed 4 KiB page-cache reads (read_cache)", samples: memory.timedReads, sampleUnit: "timed reads, counted once per interval" },
  ]);
}

function hitsOf(cache: ReadCacheSums): Measured<number> {
  if (!isPresent(cache.hitsBytes)) {
    return notMeasured("the agent sent no read-cache hits in this range (they need eBPF and a policy with the read cache on)");
  }
  return measured(cache.hitsBytes, [readCacheBasis(cache)]);
}

export function storageIosSaved(cache: ReadCacheSums, storage: StorageReadSums): Measured<number> {
  const hits = hitsOf(cache);
  if (hits.status === "not-measured") return hits;
  const readSize = meanStorageReadBytes(storage);
  if (readSize.status === "not-measured") return readSize;
  return measured(hits.value / readSize.value, [...hits.basis, ...readSize.basis]);
}

export interface TimeSaved {
  seconds: number;
  /** The two latencies the figure rests on, for display beside it. */
  storageReadLatencySeconds: number;
  memoryReadLatencySeconds: number;
  storageIosSaved: number;
}

export function storageTimeSaved(cache: ReadCacheSums, storage: StorageReadSums, memory: MemoryReadLatency): Measured<TimeSaved> {
  const saved = storageIosSaved(cache, storage);
  if (saved.status === "not-measured") return saved;
  const storageLatency = meanStorageReadLatencySeconds(storage);
  if (storageLatency.status === "not-measured") return storageLatency;
  const memoryLatency = memoryReadLatencySeconds(memory);
  if (memoryLatency.status === "not-measured") return memoryLatency;
  const hitsBytes = cache.hitsBytes as number; // present: storageIosSaved checked it
  const seconds = saved.value * storageLatency.value - (hitsBytes / pageBytes) * memoryLatency.value;
  return measured(
    { seconds, storageReadLatencySeconds: storageLatency.value, memoryReadLatencySeconds: memoryLatency.value, storageIosSaved: saved.value },
    [...saved.basis, ...storageLatency.basis, ...memoryLatency.basis],
  );
}
