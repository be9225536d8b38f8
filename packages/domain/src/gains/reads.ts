// Reads of the read cache's managed files served from memory vs from storage (issue 7, section 2).
// The agent counts both in bytes from eBPF per-file page-cache counters (spindle.read_cache.hits
// and misses); operations are derived: a page-cache hit is one 4 KiB page, a storage read is the
// device's measured mean read size (disk_io read_bytes / read_ops).
import { isPresent, measured, notMeasured, type BasisInput, type MaybeNumber, type Measured } from "./measured.js";
import { meanStorageReadBytes, type StorageReadSums } from "./storage.js";

/** Size of one page-cache page, the unit a memory hit is counted in. */
export const pageBytes = 4096;

export interface ReadCacheSums {
  /** Sum of read_cache.hits_bytes over the range; null when no row carried it. */
  hitsBytes: MaybeNumber;
  missesBytes: MaybeNumber;
  /** Rows (agent intervals or aggregate samples) the sums cover. */
  samples: number;
}

export interface ReadsServed {
  memoryBytes: number;
  storageBytes: number;
  /** Page reads served from memory (hits / 4 KiB). */
  memoryOperations: number;
  /** Reads that went to storage (misses / mean storage read size). */
  storageOperations: number;
  /** Share of bytes served from memory, 0..1. */
  memoryShare: number;
  storageShare: number;
}

export function readCacheBasis(sums: ReadCacheSums): BasisInput {
  return {
    label: "read-cache hits and misses",
    source: "eBPF per-file page-cache counters (read_cache)",
    samples: sums.samples,
    sampleUnit: "intervals",
  };
}

export function readsServed(cache: ReadCacheSums, storage: StorageReadSums): Measured<ReadsServed> {
  if (!isPresent(cache.hitsBytes) || !isPresent(cache.missesBytes)) {
    return notMeasured("the agent sent no read-cache hits or misses in this range (they need eBPF and a policy with the read cache on)");
  }
  const total = cache.hitsBytes + cache.missesBytes;
  if (total <= 0) return notMeasured("the read cache's managed files were not read in this range");
  const readSize = meanStorageReadBytes(storage);
  if (readSize.status === "not-measured") return readSize;
  return measured(
    {
      memoryBytes: cache.hitsBytes,
      storageBytes: cache.missesBytes,
      memoryOperations: cache.hitsBytes / pageBytes,
      storageOperations: cache.missesBytes / readSize.value,
      memoryShare: cache.hitsBytes / total,
      storageShare: cache.missesBytes / total,
    },
    [readCacheBasis(cache), ...readSize.basis],
  );
}
