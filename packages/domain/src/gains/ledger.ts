// The savings ledger: one line per effect of an acceleration feature, each with its measured value
// and basis or "not measured" and why. A server's ledger comes from its sums over a range; the
// fleet's adds the measured lines of its servers and names the servers where a line is missing.
// Each line says what kind of figure it is: a saving the feature caused (against a control or a
// comparison group, with an interval where there is one), a direct lower bound, a description
// (reads served from memory: the kernel serves most of those with or without Spindle), a cost,
// or a plain counter.
import type { DeviceBusySums } from "./caused-bound.js";
import {
  causedStorageReads,
  causedTimeSaved,
  ownPageHitsSaved,
  ownStorageReads,
  type CausedInterval,
  type CausedStorageReads,
} from "./caused-time.js";
import type { HoldoutSums } from "./caused-units.js";
import { isPresent, measured, notMeasured, type MaybeNumber, type Measured } from "./measured.js";
import { fragmentsPrevented, type WriteOptGrowthSums } from "./fragments.js";
import type { ReadCacheSums } from "./reads.js";
import type { StorageReadSums } from "./storage.js";
import type { MemoryReadLatency } from "./time-saved.js";

export type LedgerFeature = "read-cache" | "write-optimisation";

export type LedgerLineKey =
  | "bytesFromMemory"
  | "storageIosSaved"
  | "storageTimeSaved"
  | "ownPageHits"
  | "ownStorageReads"
  | "fragmentsPrevented"
  | "filesDefragmented"
  | "preallocatedBytes";

/**
 * caused: against a control or comparison group; lower-bound: counted directly, at most what was
 * caused; description: what happened, not a saving; cost: what the feature spent; counter: the
 * feature's own count of what it did.
 */
export type LedgerLineKind = "caused" | "lower-bound" | "description" | "cost" | "counter";

export interface LedgerLine {
  key: LedgerLineKey;
  feature: LedgerFeature;
  kind: LedgerLineKind;
  label: string;
  /** UCUM-style unit as docs/metrics.md writes them: By, s, {io}, {extent}, {file}. */
  unit: string;
  effect: Measured<number>;
  /** The 95 % interval of a caused figure, in its unit; fleet lines add the servers' ends (conservative). */
  interval?: CausedInterval;
  /** What else a reader must know about the value (the devices' bound capped it). */
  note?: string;
  /** Fleet lines: servers whose line is not measured, with why. */
  notMeasuredOn?: { server: string; reason: string }[];
}

export interface ServerGainsSums {
  readCache: ReadCacheSums;
  holdout: HoldoutSums;
  storage: StorageReadSums;
  /** Per device: I/Os, busy time and observed time (disk_io), for the physical bound. */
  devices: DeviceBusySums[];
  memoryLatency: MemoryReadLatency;
  writeOpt: WriteOptGrowthSums & { filesDefragmented: MaybeNumber; preallocatedBytes: MaybeNumber };
}

function counter(value: MaybeNumber, samples: number, label: string, reason: string): Measured<number> {
  if (!isPresent(value)) return notMeasured(reason);
  return measured(value, [{ label, source: "agent counter (write_opt)", samples, sampleUnit: "intervals" }]);
}

const cappedNote = "capped at what the devices could have served in the range";
/** Where the agent sent no counts per hash bucket, the interval is the block bootstrap's over time alone. */
export const drawVarianceNote =
  "the interval omits the variance of the control group's draw of page groups (the agent sent no counts per hash bucket: update it)";

/** A caused read-cache line's note: capped, and whether its interval sees the draw. */
function causedNote(reads: Measured<CausedStorageReads>): { note?: string } {
  if (reads.status !== "measured") return {};
  const notes = [
    ...(reads.value.capped ? [cappedNote] : []),
    ...(reads.value.estimate.interval.method === "block-bootstrap" ? [drawVarianceNote] : []),
  ];
  return notes.length > 0 ? { note: notes.join("; ") } : {};
}

export function serverLedger(sums: ServerGainsSums): LedgerLine[] {
  const { readCache, holdout, storage, devices, memoryLatency, writeOpt } = sums;
  const hits: Measured<number> = isPresent(readCache.hitsBytes)
    ? measured(readCache.hitsBytes, [
        {
          label: "read-cache hits",
          source: "eBPF per-file page-cache counters (read_cache)",
          samples: readCache.samples,
          sampleUnit: "intervals",
        },
      ])
    : notMeasured("the agent sent no read-cache hits in this range (they need eBPF and a policy with the read cache on)");
  const reads = causedStorageReads(holdout, storage, devices);
  const time = causedTimeSaved(reads, storage, memoryLatency);
  const fragments = fragmentsPrevented(writeOpt);
  const writeOptOff = "the agent sent no write-optimisation counters in this range (write optimisation off or not supported)";
  return [
    {
      key: "bytesFromMemory",
      feature: "read-cache",
      kind: "description",
      label: "Reads served from memory (managed files)",
      unit: "By",
      effect: hits,
    },
    {
      key: "storageIosSaved",
      feature: "read-cache",
      kind: "caused",
      label: "Storage reads saved (caused)",
      unit: "{io}",
      effect: reads.status === "measured" ? measured(reads.value.savedIos, reads.basis) : reads,
      ...(reads.status === "measured" ? { interval: reads.value.interval, ...causedNote(reads) } : {}),
    },
    {
      key: "storageTimeSaved",
      feature: "read-cache",
      kind: "caused",
      label: "Storage read time saved (caused)",
      unit: "s",
      effect: time.status === "measured" ? measured(time.value.seconds, time.basis) : time,
      ...(time.status === "measured" ? { interval: time.value.interval, ...causedNote(reads) } : {}),
    },
    {
      key: "ownPageHits",
      feature: "read-cache",
      kind: "lower-bound",
      label: "Reads served from pages the cache brought in (direct, a lower bound)",
      unit: "{io}",
      effect: ownPageHitsSaved(holdout, storage),
    },
    {
      key: "ownStorageReads",
      feature: "read-cache",
      kind: "cost",
      label: "Storage reads the cache made itself (prefetch, pins)",
      unit: "{io}",
      effect: ownStorageReads(holdout, storage),
    },
    {
      key: "fragmentsPrevented",
      feature: "write-optimisation",
      kind: "caused",
      label: "Fragments prevented",
      unit: "{extent}",
      effect: fragments.status === "measured" ? measured(fragments.value.prevented, fragments.basis) : fragments,
    },
    {
      key: "filesDefragmented",
      feature: "write-optimisation",
      kind: "counter",
      label: "Files defragmented",
      unit: "{file}",
      effect: counter(writeOpt.filesDefragmented, writeOpt.samples, "files defragmented", writeOptOff),
    },
    {
      key: "preallocatedBytes",
      feature: "write-optimisation",
      kind: "counter",
      label: "Space preallocated ahead of growth",
      unit: "By",
      effect: counter(writeOpt.preallocatedBytes, writeOpt.samples, "preallocated bytes", writeOptOff),
    },
  ];
}

/**
 * The fleet's ledger: each line the sum of the servers where it is measured. A caused line's
 * interval is the sum of the servers' ends, which covers at least as much as each server's own
 * (wider than a joint interval, never narrower); it is left out when a measured server has none.
 */
export function fleetLedger(servers: readonly { server: string; lines: readonly LedgerLine[] }[]): LedgerLine[] {
  const template = servers[0]?.lines ?? serverLedger(emptySums());
  return template.map((line) => {
    const measuredOn: { server: string; value: number; interval?: CausedInterval; note?: string }[] = [];
    const notMeasuredOn: { server: string; reason: string }[] = [];
    for (const { server, lines } of servers) {
      const found = lines.find((candidate) => candidate.key === line.key);
      if (found?.effect.status === "measured") {
        measuredOn.push({
          server,
          value: found.effect.value,
          ...(found.interval ? { interval: found.interval } : {}),
          ...(found.note ? { note: found.note } : {}),
        });
      } else {
        notMeasuredOn.push({ server, reason: found?.effect.status === "not-measured" ? found.effect.reason : "no ledger line" });
      }
    }
    const { interval: _interval, note: _note, ...rest } = line;
    if (measuredOn.length === 0) {
      const reason =
        servers.length === 0
          ? "the organisation has no servers"
          : `on no server (${notMeasuredOn[0]!.server}: ${notMeasuredOn[0]!.reason})`;
      return { ...rest, effect: notMeasured(reason), notMeasuredOn };
    }
    const effect = measured(
      measuredOn.reduce((sum, entry) => sum + entry.value, 0),
      [
        {
          label: "sum of the servers that measured it",
          source: measuredOn.map((entry) => entry.server).join(", "),
          samples: measuredOn.length,
          sampleUnit: `of ${servers.length} servers`,
        },
      ],
    );
    const intervals = measuredOn.map((entry) => entry.interval);
    const interval = intervals.every((each): each is CausedInterval => each !== undefined)
      ? {
          low: intervals.reduce((sum, each) => sum + each.low, 0),
          high: intervals.reduce((sum, each) => sum + each.high, 0),
          confidence: intervals[0]!.confidence,
        }
      : undefined;
    const on = (note: string) => measuredOn.filter((entry) => entry.note?.includes(note)).map((entry) => entry.server);
    const notes = [cappedNote, drawVarianceNote].flatMap((note) => (on(note).length > 0 ? [`${note} on ${on(note).join(", ")}`] : []));
    return {
      ...rest,
      effect,
      ...(interval && line.kind === "caused" ? { interval } : {}),
      ...(notes.length > 0 ? { note: notes.join("; ") } : {}),
      notMeasuredOn,
    };
  });
}

function emptySums(): ServerGainsSums {
  return {
    readCache: { hitsBytes: null, missesBytes: null, samples: 0 },
    holdout: { units: [], samples: 0, ownReadBytes: null, ownPageHitBytes: null },
    storage: { devices: [], readBytes: null, readOps: null, latencySumSeconds: null, latencyOperations: null },
    devices: [],
    memoryLatency: { meanSeconds: null, timedReads: null },
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
}
