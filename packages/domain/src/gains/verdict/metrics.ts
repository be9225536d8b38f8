// The per-I/O costs a policy change is judged on. All four are lower-is-better.

export type VerdictMetricKey = "meanReadLatency" | "pageCacheMissRatio" | "splitIosPerIo" | "storageReadsPerAccess";

export interface VerdictMetric {
  key: VerdictMetricKey;
  label: string;
  unit: string;
  /** Where its sums come from, for the basis line. */
  source: string;
  /** What the denominator counts, for "12,345 reads". */
  denominatorUnit: string;
}

export const verdictMetrics: Record<VerdictMetricKey, VerdictMetric> = {
  meanReadLatency: {
    key: "meanReadLatency",
    label: "Mean storage read latency",
    unit: "s",
    source: "eBPF latency histogram (disk_latency, reads)",
    denominatorUnit: "reads",
  },
  pageCacheMissRatio: {
    key: "pageCacheMissRatio",
    label: "Page-cache miss ratio",
    unit: "1",
    source: "eBPF page-cache counters (page_cache)",
    denominatorUnit: "page accesses",
  },
  splitIosPerIo: {
    key: "splitIosPerIo",
    label: "Split I/Os per I/O",
    unit: "1",
    source: "eBPF split counter (disk_split_io) over diskstats I/Os (disk_io)",
    denominatorUnit: "I/Os",
  },
  storageReadsPerAccess: {
    key: "storageReadsPerAccess",
    label: "Storage reads per page access",
    unit: "1",
    source: "diskstats reads (disk_io) over eBPF page accesses (page_cache)",
    denominatorUnit: "page accesses",
  },
};
