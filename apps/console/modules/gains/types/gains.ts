import type { CausedStorageReads, CausedTimeSaved, FragmentsPrevented, LedgerLine, Measured, ReadsServed } from "@spindle/domain";
import type { Resolution } from "../lib/gains-range";
import type { GainsRangeQuery } from "./range";

export interface GainsRangeView {
  range: GainsRangeQuery["range"];
  from: string;
  to: string;
  resolution: Resolution;
  bucketSeconds: number | null;
}

/** Storage reads of one device: what the gains maths rests on, per device. */
export interface DeviceReads {
  device: string;
  readOps: number | null;
  readBytes: number | null;
  meanReadBytes: Measured<number>;
  meanReadLatencySeconds: Measured<number>;
}

export interface ReadSeries {
  time: number[];
  memoryBytesPerSecond: (number | null)[];
  storageBytesPerSecond: (number | null)[];
}

export interface ServerGainsSummary {
  serverId: string;
  hostname: string;
  /** Reads of the managed files served from memory: a description, not a saving. */
  reads: Measured<ReadsServed>;
  storageReadLatencySeconds: Measured<number>;
  memoryReadLatencySeconds: Measured<number>;
  /** Storage reads the read cache caused to be saved, against its control group, with an interval. */
  causedReads: Measured<CausedStorageReads>;
  causedTime: Measured<CausedTimeSaved>;
  /** The direct witness: first hits on pages the cache brought in, as storage reads (a lower bound). */
  ownPageHits: Measured<number>;
  fragments: Measured<FragmentsPrevented>;
  ledger: LedgerLine[];
}

export interface ServerGains extends ServerGainsSummary {
  range: GainsRangeView;
  devices: DeviceReads[];
  series: ReadSeries;
}

export interface FleetGains {
  range: GainsRangeView;
  servers: ServerGainsSummary[];
  ledger: LedgerLine[];
}
