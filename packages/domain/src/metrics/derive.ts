// How the console turns stored counters into what it draws. Every formula works on sums over a
// bucket (a raw row is a bucket of one sample), so a rate over any bucket is exact and latency is
// I/O-weighted: sum(time) / sum(ops), never an average of per-interval averages.
// The formulas are the table "Derived in the console" in docs/metrics.md.

/** Sums of the `disk_io` counter columns over one bucket of one device. */
export interface DiskIoSums {
  intervalSeconds: number;
  readOps: number;
  writeOps: number;
  readBytes: number;
  writeBytes: number;
  readTimeMs: number;
  writeTimeMs: number;
  ioTimeMs: number;
  weightedIoTimeMs: number;
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

export function perSecond(delta: number, intervalSeconds: number): number | null {
  return intervalSeconds > 0 ? delta / intervalSeconds : null;
}

/** I/O-weighted average latency: total time spent on operations over the number of operations. */
export function averageLatencyMs(timeMs: number, operations: number): number | null {
  return operations > 0 ? timeMs / operations : null;
}

/** Average number of I/Os in flight: the queue-length integral over wall time. */
export function averageQueueDepth(weightedIoTimeMs: number, intervalSeconds: number): number | null {
  return intervalSeconds > 0 ? weightedIoTimeMs / (1000 * intervalSeconds) : null;
}

/**
 * Share of wall time the device had I/O in flight. Capped at 100 like sysstat's iostat does:
 * the kernel's io_ticks and the agent's interval are read a few microseconds apart, so a fully
 * busy device can report slightly more than the interval.
 */
export function utilisationPercent(ioTimeMs: number, intervalSeconds: number): number | null {
  if (intervalSeconds <= 0) return null;
  return Math.min(100, (100 * ioTimeMs) / (1000 * intervalSeconds));
}

export function deriveDiskIo(sums: DiskIoSums): DiskIoRates {
  const seconds = sums.intervalSeconds;
  const megabytes = (bytes: number) => {
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

/** Adds bucket sums, e.g. to fold several samples into one coarser bucket. */
export function addDiskIoSums(a: DiskIoSums, b: DiskIoSums): DiskIoSums {
  return {
    intervalSeconds: a.intervalSeconds + b.intervalSeconds,
    readOps: a.readOps + b.readOps,
    writeOps: a.writeOps + b.writeOps,
    readBytes: a.readBytes + b.readBytes,
    writeBytes: a.writeBytes + b.writeBytes,
    readTimeMs: a.readTimeMs + b.readTimeMs,
    writeTimeMs: a.writeTimeMs + b.writeTimeMs,
    ioTimeMs: a.ioTimeMs + b.ioTimeMs,
    weightedIoTimeMs: a.weightedIoTimeMs + b.weightedIoTimeMs,
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
