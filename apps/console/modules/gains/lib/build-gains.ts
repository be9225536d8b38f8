// Turns the summed rows of one server into its gains: the domain maths on measured inputs, each
// figure with its basis or "not measured". Pure, so the rules are tested without a database.
import {
  causedStorageReads,
  causedTimeSaved,
  fragmentsPrevented,
  holdoutBuckets,
  meanStorageReadBytes,
  meanStorageReadLatencySeconds,
  memoryReadLatencySeconds,
  ownPageHitsSaved,
  readsServed,
  serverLedger,
  type DeviceBusySums,
  type HoldoutBucketSums,
  type HoldoutSums,
  type MemoryReadLatency,
  type ServerGainsSums,
  type StorageReadSums,
} from "@spindle/domain";
import type { DeviceReads, ServerGainsSummary } from "../types/gains";
import type { HoldoutBucketRow, HoldoutUnitRow, ReadCacheSumsRow, StorageReadsRow, WriteOptSumsRow } from "./gains-sql";

/** Adds nullable sums: null only when every value is null (never sent), otherwise the sum of those sent. */
function addNullable(values: (number | null)[]): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0 ? null : present.reduce((sum, value) => sum + value, 0);
}

/** Devices that read anything in the range; idle ones (loop devices, spare disks) add nothing to the maths. */
export function devicesWithReads(rows: readonly StorageReadsRow[]): StorageReadsRow[] {
  return rows.filter((row) => (row.read_ops ?? 0) > 0 || (row.latency_operations ?? 0) > 0);
}

export function storageSums(rows: readonly StorageReadsRow[]): StorageReadSums {
  return {
    devices: devicesWithReads(rows).map((row) => row.device),
    readOps: addNullable(rows.map((row) => row.read_ops)),
    readBytes: addNullable(rows.map((row) => row.read_bytes)),
    latencyOperations: addNullable(rows.map((row) => row.latency_operations)),
    latencySumSeconds: addNullable(rows.map((row) => row.latency_sum_seconds)),
  };
}

/** The devices' I/Os, busy and observed time, for what they could physically have served. */
export function deviceBusy(rows: readonly StorageReadsRow[]): DeviceBusySums[] {
  return rows.map((row) => ({
    device: row.device,
    observedSeconds: row.observed_seconds,
    readOps: row.read_ops,
    writeOps: row.write_ops,
    busySeconds: row.io_time_ms === null ? null : row.io_time_ms / 1000,
  }));
}

/** One server's control-group units, in time order (the query's), its own-page totals, and its hash buckets' sums. */
export function holdoutSums(rows: readonly HoldoutUnitRow[], bucketRows: readonly HoldoutBucketRow[] = []): HoldoutSums {
  const total = (pick: (row: HoldoutUnitRow) => number) => (rows.length === 0 ? null : rows.reduce((sum, row) => sum + pick(row), 0));
  return {
    units: rows.map((row) => ({
      holdoutShare: (row.holdout_percent ?? 0) / 100,
      managedAccessedBytes: row.managed_accessed_bytes,
      managedMissedBytes: row.managed_missed_bytes,
      controlAccessedBytes: row.control_accessed_bytes,
      controlMissedBytes: row.control_missed_bytes,
      intervals: row.rows,
    })),
    samples: rows.reduce((sum, row) => sum + row.rows, 0),
    ownReadBytes: total((row) => row.own_read_bytes),
    ownPageHitBytes: total((row) => row.own_page_hit_bytes),
    buckets: bucketSums(bucketRows),
  };
}

/**
 * The buckets' sums, and how many agent intervals sent them: the fewest of any bucket (an agent
 * sends all 16 together, so a bucket with fewer, or none, means part of the range lacks them).
 */
function bucketSums(rows: readonly HoldoutBucketRow[]): HoldoutBucketSums | null {
  if (rows.length === 0) return null;
  const intervals = Math.min(
    ...Array.from({ length: holdoutBuckets }, (_, bucket) => rows.find((row) => row.hash_bucket === bucket)?.rows ?? 0),
  );
  return {
    counts: rows.map((row) => ({
      bucket: row.hash_bucket,
      managedAccessedBytes: row.managed_accessed_bytes,
      managedMissedBytes: row.managed_missed_bytes,
      controlAccessedBytes: row.control_accessed_bytes,
      controlMissedBytes: row.control_missed_bytes,
    })),
    intervals,
  };
}

export function memoryLatency(row: ReadCacheSumsRow | undefined): MemoryReadLatency {
  if (!row || row.memory_latency_weighted === null || !row.memory_latency_samples) return { meanSeconds: null, timedReads: null };
  return { meanSeconds: row.memory_latency_weighted / row.memory_latency_samples, timedReads: row.memory_latency_samples };
}

export function gainsSums(
  cache: ReadCacheSumsRow | undefined,
  writeOpt: WriteOptSumsRow | undefined,
  storage: readonly StorageReadsRow[],
  holdout: readonly HoldoutUnitRow[] = [],
  buckets: readonly HoldoutBucketRow[] = [],
): ServerGainsSums {
  return {
    readCache: { hitsBytes: cache?.hits_bytes ?? null, missesBytes: cache?.misses_bytes ?? null, samples: cache?.rows ?? 0 },
    holdout: holdoutSums(holdout, buckets),
    storage: storageSums(storage),
    devices: deviceBusy(storage),
    memoryLatency: memoryLatency(cache),
    writeOpt: {
      managedGrownBytes: writeOpt?.managed_grown_bytes ?? null,
      managedExtentsAdded: writeOpt?.managed_extents_added ?? null,
      unmanagedGrownBytes: writeOpt?.unmanaged_grown_bytes ?? null,
      unmanagedExtentsAdded: writeOpt?.unmanaged_extents_added ?? null,
      filesDefragmented: writeOpt?.files_defragmented ?? null,
      preallocatedBytes: writeOpt?.preallocated_bytes ?? null,
      samples: writeOpt?.rows ?? 0,
    },
  };
}

export function buildSummary(server: { id: string; hostname: string }, sums: ServerGainsSums): ServerGainsSummary {
  const causedReads = causedStorageReads(sums.holdout, sums.storage, sums.devices);
  return {
    serverId: server.id,
    hostname: server.hostname,
    reads: readsServed(sums.readCache, sums.storage),
    storageReadLatencySeconds: meanStorageReadLatencySeconds(sums.storage),
    memoryReadLatencySeconds: memoryReadLatencySeconds(sums.memoryLatency),
    causedReads,
    causedTime: causedTimeSaved(causedReads, sums.storage, sums.memoryLatency),
    ownPageHits: ownPageHitsSaved(sums.holdout, sums.storage),
    fragments: fragmentsPrevented(sums.writeOpt),
    ledger: serverLedger(sums),
  };
}

export function deviceReads(rows: readonly StorageReadsRow[]): DeviceReads[] {
  return devicesWithReads(rows).map((row) => {
    const sums = storageSums([row]);
    return {
      device: row.device,
      readOps: row.read_ops,
      readBytes: row.read_bytes,
      meanReadBytes: meanStorageReadBytes(sums),
      meanReadLatencySeconds: meanStorageReadLatencySeconds(sums),
    };
  });
}
