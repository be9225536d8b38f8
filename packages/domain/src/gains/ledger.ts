// The savings ledger: one line per effect of an acceleration feature, each with its measured value
// and basis or "not measured" and why. A server's ledger comes from its sums over a range; the
// fleet's adds the measured lines of its servers and names the servers where a line is missing.
import { isPresent, measured, notMeasured, type MaybeNumber, type Measured } from "./measured.js";
import { fragmentsPrevented, type WriteOptGrowthSums } from "./fragments.js";
import type { ReadCacheSums } from "./reads.js";
import type { StorageReadSums } from "./storage.js";
import { storageIosSaved, storageTimeSaved, type MemoryReadLatency } from "./time-saved.js";

export type LedgerFeature = "read-cache" | "write-optimisation";

export type LedgerLineKey =
  | "bytesFromMemory"
  | "storageIosSaved"
  | "storageTimeSaved"
  | "fragmentsPrevented"
  | "filesDefragmented"
  | "preallocatedBytes";

export interface LedgerLine {
  key: LedgerLineKey;
  feature: LedgerFeature;
  label: string;
  /** UCUM-style unit as docs/metrics.md writes them: By, s, {io}, {extent}, {file}. */
  unit: string;
  effect: Measured<number>;
  /** Fleet lines: servers whose line is not measured, with why. */
  notMeasuredOn?: { server: string; reason: string }[];
}

export interface ServerGainsSums {
  readCache: ReadCacheSums;
  storage: StorageReadSums;
  memoryLatency: MemoryReadLatency;
  writeOpt: WriteOptGrowthSums & { filesDefragmented: MaybeNumber; preallocatedBytes: MaybeNumber };
}

function counter(value: MaybeNumber, samples: number, label: string, reason: string): Measured<number> {
  if (!isPresent(value)) return notMeasured(reason);
  return measured(value, [{ label, source: "agent counter (write_opt)", samples, sampleUnit: "intervals" }]);
}

export function serverLedger(sums: ServerGainsSums): LedgerLine[] {
  const { readCache, storage, memoryLatency, writeOpt } = sums;
  const hits: Measured<number> = isPresent(readCache.hitsBytes)
    ? measured(readCache.hitsBytes, [{ label: "read-cache hits", source: "eBPF per-file page-cache counters (read_cache)", samples: readCache.samples, sampleUnit: "intervals" }])
    : notMeasured("the agent sent no read-cache hits in this range (they need eBPF and a policy with the read cache on)");
  const time = storageTimeSaved(readCache, storage, memoryLatency);
  const fragments = fragmentsPrevented(writeOpt);
  const writeOptOff = "the agent sent no write-optimisation counters in this range (write optimisation off or not supported)";
  return [
    { key: "bytesFromMemory", feature: "read-cache", label: "Reads served from memory", unit: "By", effect: hits },
    { key: "storageIosSaved", feature: "read-cache", label: "Storage reads saved", unit: "{io}", effect: storageIosSaved(readCache, storage) },
    {
      key: "storageTimeSaved",
      feature: "read-cache",
      label: "Storage read time saved",
      unit: "s",
      effect: time.status === "measured" ? measured(time.value.seconds, time.basis) : time,
    },
    {
      key: "fragmentsPrevented",
      feature: "write-optimisation",
      label: "Fragments prevented",
      unit: "{extent}",
      effect: fragments.status === "measured" ? measured(fragments.value.prevented, fragments.basis) : fragments,
    },
    { key: "filesDefragmented", feature: "write-optimisation", label: "Files defragmented", unit: "{file}", effect: counter(writeOpt.filesDefragmented, writeOpt.samples, "files defragmented", writeOptOff) },
    { key: "preallocatedBytes", feature: "write-optimisation", label: "Space preallocated ahead of growth", unit: "By", effect: counter(writeOpt.preallocatedBytes, writeOpt.samples, "preallocated bytes", writeOptOff) },
  ];
}

/** The fleet's ledger: each line the sum of the servers where it is measured. */
export function fleetLedger(servers: readonly { server: string; lines: readonly LedgerLine[] }[]): LedgerLine[] {
  const template = servers[0]?.lines ?? serverLedger(emptySums());
  return template.map((line) => {
    const measuredOn: { server: string; value: number; samples: number }[] = [];
    const notMeasuredOn: { server: string; reason: string }[] = [];
    for (const { server, lines } of servers) {
      const effect = lines.find((candidate) => candidate.key === line.key)?.effect;
      if (effect?.status === "measured") {
        measuredOn.push({ server, value: effect.value, samples: effect.basis.reduce((sum, input) => sum + input.samples, 0) });
      } else {
        notMeasuredOn.push({ server, reason: effect?.status === "not-measured" ? effect.reason : "no ledger line" });
      }
    }
    const effect: Measured<number> = measuredOn.length === 0
      ? notMeasured(servers.length === 0 ? "the organisation has no servers" : `on no server (${notMeasuredOn[0]!.server}: ${notMeasuredOn[0]!.reason})`)
      : measured(measuredOn.reduce((sum, entry) => sum + entry.value, 0), [
        { label: "sum of the servers that measured it", source: measuredOn.map((entry) => entry.server).join(", "), samples: measuredOn.length, sampleUnit: `of ${servers.length} servers` },
      ]);
    return { ...line, effect, notMeasuredOn };
  });
}

function emptySums(): ServerGainsSums {
  return {
    readCache: { hitsBytes: null, missesBytes: null, samples: 0 },
    storage: { devices: [], readBytes: null, readOps: null, latencySumSeconds: null, latencyOperations: null },
    memoryLatency: { meanSeconds: null, timedReads: null },
    writeOpt: { managedGrownBytes: null, managedExtentsAdded: null, unmanagedGrownBytes: null, unmanagedExtentsAdded: null, samples: 0, filesDefragmented: null, preallocatedBytes: null },
  };
}
