// What the server's devices could physically have served on top of what they did, in the
// range: a saving is reads that did not happen, and had they happened the devices would have
// had to serve them too. Each device served its I/Os (diskstats reads + writes) in its busy
// time (diskstats io_time: time with an I/O in flight), i.e. at ops / busy I/Os per busy
// second, at the concurrency the workload gave it; busy the whole time it was observed, it could
// have served at most observed × that rate, so at most (observed − busy) × ops / busy more.
// Summed over the devices that did any I/O (the read cache's figures are per server, and which
// device a saved read would have gone to is not known, so the bound is the loosest, never a
// narrower guess). A device with no I/O has no measured rate and adds nothing.
import { measured, notMeasured, type Measured } from "./measured.js";

export interface DeviceBusySums {
  device: string;
  /** Seconds of diskstats intervals summed: how long the device was observed. */
  observedSeconds: number | null;
  readOps: number | null;
  writeOps: number | null;
  /** diskstats io_time over the range, in seconds. */
  busySeconds: number | null;
}

export interface DeviceSpareReads {
  /** I/Os the devices could have served beyond those they did. */
  spareIos: number;
  /** Reads they did serve: a negative saving (reads the cache added) cannot exceed them. */
  readOps: number;
  devices: string[];
}

export function deviceSpareReads(devices: readonly DeviceBusySums[]): Measured<DeviceSpareReads> {
  let spareIos = 0;
  let readOps = 0;
  let observed = 0;
  const used: string[] = [];
  for (const device of devices) {
    const ops = (device.readOps ?? 0) + (device.writeOps ?? 0);
    if (device.busySeconds === null || device.observedSeconds === null || device.busySeconds <= 0 || ops <= 0) continue;
    const busy = Math.min(device.busySeconds, device.observedSeconds);
    spareIos += ((device.observedSeconds - busy) * ops) / busy;
    readOps += device.readOps ?? 0;
    observed += device.observedSeconds;
    used.push(device.device);
  }
  if (used.length === 0) {
    return notMeasured("no device did any I/O in this range (diskstats), so what the devices could have served is unknown");
  }
  return measured({ spareIos, readOps, devices: used }, [
    {
      label: "what the devices could have served",
      source: `diskstats busy time and I/Os (disk_io) on ${used.join(", ")}`,
      samples: observed,
      sampleUnit: "device-seconds observed",
    },
  ]);
}

/** A value and its interval, bounded to [−reads served, spare]; `capped` says whether the bound bit. */
export function boundSaving(
  value: { saved: number; low: number; high: number },
  bound: DeviceSpareReads,
): { saved: number; low: number; high: number; capped: boolean } {
  const clamp = (x: number) => Math.min(bound.spareIos, Math.max(-bound.readOps, x));
  const saved = clamp(value.saved);
  return {
    saved,
    low: clamp(value.low),
    high: clamp(value.high),
    capped: saved !== value.saved || clamp(value.high) !== value.high || clamp(value.low) !== value.low,
  };
}
