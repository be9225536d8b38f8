// The storage side of the gains maths, per the gains contract: the device's mean read I/O size
// from diskstats (disk_io read_bytes / read_ops) and its mean read latency from the eBPF block
// latency histogram (disk_latency, operation read: sum_seconds / operations).
import { isPresent, measured, notMeasured, type MaybeNumber, type Measured } from "./measured.js";

export interface StorageReadSums {
  /** Devices the sums cover, for the basis line. */
  devices: readonly string[];
  /** disk_io: read bytes and read operations over the range. */
  readBytes: MaybeNumber;
  readOps: MaybeNumber;
  /** disk_latency (read): total seconds and operations the histogram counted. */
  latencySumSeconds: MaybeNumber;
  latencyOperations: MaybeNumber;
}

function onDevices(devices: readonly string[]): string {
  return devices.length > 0 ? ` on ${devices.join(", ")}` : "";
}

export function meanStorageReadBytes(storage: StorageReadSums): Measured<number> {
  if (!isPresent(storage.readOps) || !isPresent(storage.readBytes) || storage.readOps <= 0) {
    return notMeasured("no storage reads were counted in this range (diskstats), so the mean read size is unknown");
  }
  return measured(storage.readBytes / storage.readOps, [
    {
      label: "mean storage read size",
      source: `diskstats (disk_io)${onDevices(storage.devices)}`,
      samples: storage.readOps,
      sampleUnit: "reads",
    },
  ]);
}

export function meanStorageReadLatencySeconds(storage: StorageReadSums): Measured<number> {
  if (!isPresent(storage.latencyOperations) || !isPresent(storage.latencySumSeconds) || storage.latencyOperations <= 0) {
    return notMeasured("no eBPF read-latency histogram in this range (it needs the agent's eBPF block tracing)");
  }
  return measured(storage.latencySumSeconds / storage.latencyOperations, [
    {
      label: "storage read latency",
      source: `eBPF latency histogram (disk_latency)${onDevices(storage.devices)}`,
      samples: storage.latencyOperations,
      sampleUnit: "reads",
    },
  ]);
}
