// How the console turns stored counters into what it draws. Every formula works on sums over a
// bucket (a raw row is a bucket of one sample), so a rate over any bucket is exact and latency is
// I/O-weighted: sum(time) / sum(ops), never an average of per-interval averages.
// The formulas are the table "Derived in the console" in docs/metrics.md.

/**
 * A stored value, or null where it was not measured (the agent did not send the metric: an OS
 * without merge counters, for example). Not measured is never read as 0: whatever is derived
 * from it is null too, and a chart shows a gap.
 */
export type StoredValue = number | null;

/** Sums of the `disk_io` counter columns over one bucket of one device. */
export interface DiskIoSums {
  intervalSeconds: number;
  readOps: StoredValue;
  writeOps: StoredValue;
  readBytes: StoredValue;
  writeBytes: StoredValue;
  readTimeMs: StoredValue;
  writeTimeMs: StoredValue;
  ioTimeMs: StoredValue;
  weightedIoTimeMs: StoredValue;
}

/** What one bucket of one device looks like on the charts; null where the value is undefined. */
export interface DiskIoRates {
  readIops: number | null;
  writeIops: number | null;
  readMegabytesPerSecond: number | null;
  writeMegabytesPerSecond: number | null;
  /** null when the bucket completed no reads: there is no latency to average. */
  readLatencyMs: number | null;
  writeLatencyMs: number | null;
  queueDepth: number | null;
  utilisationPercent: number | null;
}

export function perSecond(delta: StoredValue, intervalSeconds: number): number | null {
  return delta !== null && intervalSeconds > 0 ? delta / intervalSeconds : null;
}

/** I/O-weighted average latency: total time spent on operations over the number of operations. */
export function averageLatencyMs(timeMs: StoredValue, operations: StoredValue): number | null {
  return timeMs !== null && operations !== null && operations > 0 ? timeMs / operations : null;
}

/** Average number of I/Os in flight: the queue-length integral over wall time. */
export function averageQueueDepth(weightedIoTimeMs: StoredValue, intervalSeconds: number): number | null {
  return weightedIoTimeMs !== null && intervalSeconds > 0 ? weightedIoTimeMs / (1000 * intervalSeconds) : null;
}

/**
 * Share of wall time the device had I/O in flight. Capped at 100 like sysstat's iostat does:
 * the kernel's io_ticks and the agent's interval are read a few microseconds apart, so a fully
 * busy device can report slightly more than the interval.
 */
export function utilisationPercent(ioTimeMs: StoredValue, intervalSeconds: number): number | null {
  if (ioTimeMs === null || intervalSeconds <= 0) return null;
  return Math.min(100, (100 * ioTimeMs) / (1000 * intervalSeconds));
}

export function deriveDiskIo(sums: DiskIoSums): DiskIoRates {
  const seconds = sums.intervalSeconds;
  const megabytes = (bytes: StoredValue) => {
    const rate = perSecond(bytes, seconds);
    return rate === null ? null : rate / 1e6;
  };
  return {
    readIops: perSecond(sums.readOps, seconds),
    writeIops: perSecond(sums.writeOps, seconds),
    readMegabytesPerSecond: megabytes(sums.readBytes),
    writeMegabytesPerSecond: megabytes(sums.writeBytes),
    readLatencyMs: averageLatencyMs(sums.readTimeMs, sums.readOps),
    writeLatencyMs: averageLatencyMs(sums.writeTimeMs, sums.writeOps),
    queueDepth: averageQueueDepth(sums.weightedIoTimeMs, seconds),
    utilisationPercent: utilisationPercent(sums.ioTimeMs, seconds),
  };
}

/** Adds two measurements as SQL's sum() does: not measured is absent, not 0. */
export function addStoredValues(a: StoredValue, b: StoredValue): StoredValue {
  return a === null ? b : b === null ? a : a + b;
}

/** Adds bucket sums, e.g. to fold several samples into one coarser bucket. */
export function addDiskIoSums(a: DiskIoSums, b: DiskIoSums): DiskIoSums {
  return {
    intervalSeconds: a.intervalSeconds + b.intervalSeconds,
    readOps: addStoredValues(a.readOps, b.readOps),
    writeOps: addStoredValues(a.writeOps, b.writeOps),
    readBytes: addStoredValues(a.readBytes, b.readBytes),
    writeBytes: addStoredValues(a.writeBytes, b.writeBytes),
    readTimeMs: addStoredValues(a.readTimeMs, b.readTimeMs),
    writeTimeMs: addStoredValues(a.writeTimeMs, b.writeTimeMs),
    ioTimeMs: addStoredValues(a.ioTimeMs, b.ioTimeMs),
    weightedIoTimeMs: addStoredValues(a.weightedIoTimeMs, b.weightedIoTimeMs),
  };
}

export type DiskIoRateName = keyof DiskIoRates;

/** The derived disk series the console charts, with their display unit. */
export const diskIoRateSeries: readonly { name: DiskIoRateName; label: string; unit: string }[] = [
  { name: "readIops", label: "Read IOPS", unit: "ops/s" },
  { name: "writeIops", label: "Write IOPS", unit: "ops/s" },
  { name: "readMegabytesPerSecond", label: "Read MB/s", unit: "MB/s" },
  { name: "writeMegabytesPerSecond", label: "Write MB/s", unit: "MB/s" },
  { name: "readLatencyMs", label: "Average read latency", unit: "ms" },
  { name: "writeLatencyMs", label: "Average write latency", unit: "ms" },
  { name: "queueDepth", label: "Average queue depth", unit: "I/Os" },
  { name: "utilisationPercent", label: "Utilisation", unit: "%" },
];
