// What a read served from memory costs on the host: the agent's calibrated timing of
// resident-page reads. Time saved (caused-time.ts) weighs it against the device's measured read
// latency. A page-cache hit on a managed file is not a saving by itself (the kernel serves most
// of them with or without Spindle): what the read cache saved is measured against its control
// group (caused-reads.ts).
import { isPresent, measured, notMeasured, type MaybeNumber, type Measured } from "./measured.js";

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
    {
      label: "memory read latency",
      source: "agent's timed 4 KiB page-cache reads (read_cache)",
      samples: memory.timedReads,
      sampleUnit: "timed reads, counted once per interval",
    },
  ]);
}
