// The caused figures in the units the ledger uses: storage read I/Os (pages × 4 KiB / the
// devices' mean read size, as for every read figure), never more than the devices could have
// served (caused-bound.ts), and the storage read time they stood for, from the two measured
// latencies: each saved read would have cost the device's mean read latency and cost a memory
// read of its pages instead. Beside them the direct witness, a lower bound counted page by page.
import { boundSaving, deviceSpareReads, type DeviceBusySums } from "./caused-bound.js";
import { causedReadsSaved, type CausedReads, type CausedReadsOptions } from "./caused-reads.js";
import type { HoldoutSums } from "./caused-units.js";
import { isPresent, measured, notMeasured, type Measured } from "./measured.js";
import { pageBytes } from "./reads.js";
import { meanStorageReadBytes, meanStorageReadLatencySeconds, type StorageReadSums } from "./storage.js";
import { memoryReadLatencySeconds, type MemoryReadLatency } from "./time-saved.js";

export interface CausedInterval {
  low: number;
  high: number;
  confidence: number;
}

export interface CausedStorageReads {
  /** Storage read I/Os the cache caused to be saved; negative when it caused more. */
  savedIos: number;
  interval: CausedInterval;
  /** The devices' bound bit: the estimate (or an end of its interval) was more than they could have served. */
  capped: boolean;
  spareIos: number;
  meanReadBytes: number;
  estimate: CausedReads;
}

export function causedStorageReads(
  holdout: HoldoutSums,
  storage: StorageReadSums,
  devices: readonly DeviceBusySums[],
  options: Partial<CausedReadsOptions> = {},
): Measured<CausedStorageReads> {
  const estimate = causedReadsSaved(holdout, options);
  if (estimate.status === "not-measured") return estimate;
  const readSize = meanStorageReadBytes(storage);
  if (readSize.status === "not-measured") return readSize;
  const bound = deviceSpareReads(devices);
  if (bound.status === "not-measured") return bound;
  const ios = (pages: number) => (pages * pageBytes) / readSize.value;
  const { interval } = estimate.value;
  const bounded = boundSaving(
    { saved: ios(estimate.value.savedPages), low: ios(interval.lowPages), high: ios(interval.highPages) },
    bound.value,
  );
  return measured(
    {
      savedIos: bounded.saved,
      interval: { low: bounded.low, high: bounded.high, confidence: interval.confidence },
      capped: bounded.capped,
      spareIos: bound.value.spareIos,
      meanReadBytes: readSize.value,
      estimate: estimate.value,
    },
    [...estimate.basis, ...readSize.basis, ...bound.basis],
  );
}

export interface CausedTimeSaved {
  seconds: number;
  interval: CausedInterval;
  storageReadLatencySeconds: number;
  memoryReadLatencySeconds: number;
}

/** seconds = saved I/Os × storage read latency − their pages × memory read latency (linear, so the interval maps end to end). */
export function causedTimeSaved(
  reads: Measured<CausedStorageReads>,
  storage: StorageReadSums,
  memory: MemoryReadLatency,
): Measured<CausedTimeSaved> {
  if (reads.status === "not-measured") return reads;
  const storageLatency = meanStorageReadLatencySeconds(storage);
  if (storageLatency.status === "not-measured") return storageLatency;
  const memoryLatency = memoryReadLatencySeconds(memory);
  if (memoryLatency.status === "not-measured") return memoryLatency;
  const perIo = storageLatency.value - (reads.value.meanReadBytes / pageBytes) * memoryLatency.value;
  const ends = [reads.value.interval.low * perIo, reads.value.interval.high * perIo];
  return measured(
    {
      seconds: reads.value.savedIos * perIo,
      interval: { low: Math.min(...ends), high: Math.max(...ends), confidence: reads.value.interval.confidence },
      storageReadLatencySeconds: storageLatency.value,
      memoryReadLatencySeconds: memoryLatency.value,
    },
    [...reads.basis, ...storageLatency.basis, ...memoryLatency.basis],
  );
}

/**
 * The direct witness: first accesses to pages the read cache itself brought into memory (prefetch,
 * pin) while they were still resident, counted in the kernel page by page. Each is a read that
 * would have gone to storage had the cache not loaded the page, so it is a lower bound of what
 * the cache spared applications; as storage reads, pages × 4 KiB / the mean read size.
 */
export function ownPageHitsSaved(holdout: HoldoutSums, storage: StorageReadSums): Measured<number> {
  if (!isPresent(holdout.ownPageHitBytes)) {
    return notMeasured(
      "the agent sent no count of hits on the pages it brought in: it needs the page-cache eBPF program (Linux 6.10 or newer)",
    );
  }
  const readSize = meanStorageReadBytes(storage);
  if (readSize.status === "not-measured") return readSize;
  return measured(holdout.ownPageHitBytes / readSize.value, [
    {
      label: "first hits on pages the cache brought in",
      source: "eBPF, page by page (read_cache_holdout)",
      samples: holdout.ownPageHitBytes / pageBytes,
      sampleUnit: "pages",
    },
    ...readSize.basis,
  ]);
}

/** Storage reads the cache made itself to bring pages in (prefetch, pins): its cost, beside the saving. */
export function ownStorageReads(holdout: HoldoutSums, storage: StorageReadSums): Measured<number> {
  if (!isPresent(holdout.ownReadBytes)) {
    return notMeasured("the agent sent no count of the pages it read itself: it needs the page-cache eBPF program (Linux 6.10 or newer)");
  }
  const readSize = meanStorageReadBytes(storage);
  if (readSize.status === "not-measured") return readSize;
  return measured(holdout.ownReadBytes / readSize.value, [
    {
      label: "pages the cache brought in itself",
      source: "eBPF, the read cache's own thread (read_cache_holdout)",
      samples: holdout.ownReadBytes / pageBytes,
      sampleUnit: "pages",
    },
    ...readSize.basis,
  ]);
}
