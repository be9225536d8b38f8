// The one list of every metric Spindle collects: what the agent sends (OTLP name, type, unit,
// attributes), where the gateway stores it, and which columns hold it. docs/metrics.md is the
// prose version of this file; a metric added here must be added there too (catalogue.test.ts
// checks the two name the same metrics).

export type MetricType = "sum" | "gauge" | "histogram";

export type MetricSource = "linux:/proc/diskstats" | "linux:/proc/meminfo" | "linux:ebpf" | "agent";

export interface MetricDefinition {
  /** OTLP metric name: OpenTelemetry semantic convention where one exists, `spindle.*` otherwise. */
  name: string;
  type: MetricType;
  /** UCUM unit as sent over OTLP. */
  unit: string;
  description: string;
  source: MetricSource;
  /** OTLP data point attributes, besides the resource. */
  attributes: readonly string[];
  /** Where the gateway stores it; null while the gateway accepts and ignores the metric. */
  table: "disk_io" | "memory" | null;
  /** Table columns, in attribute order (e.g. read then write for `disk.io.direction`). */
  columns: readonly string[];
}

const deviceAndDirection = ["system.device", "disk.io.direction"] as const;

export const metricCatalogue = [
  {
    name: "system.disk.operations",
    type: "sum",
    unit: "{operation}",
    description: "Read and write operations completed in the interval (delta).",
    source: "linux:/proc/diskstats",
    attributes: deviceAndDirection,
    table: "disk_io",
    columns: ["read_ops", "write_ops"],
  },
  {
    name: "system.disk.io",
    type: "sum",
    unit: "By",
    description: "Bytes read and written in the interval (delta).",
    source: "linux:/proc/diskstats",
    attributes: deviceAndDirection,
    table: "disk_io",
    columns: ["read_bytes", "write_bytes"],
  },
  {
    name: "system.disk.merged",
    type: "sum",
    unit: "{operation}",
    description: "Adjacent requests merged by the I/O scheduler in the interval (delta).",
    source: "linux:/proc/diskstats",
    attributes: deviceAndDirection,
    table: "disk_io",
    columns: ["read_merged", "write_merged"],
  },
  {
    name: "system.disk.operation_time",
    type: "sum",
    unit: "s",
    description: "Time spent on completed reads and writes in the interval; divided by operations it gives average latency.",
    source: "linux:/proc/diskstats",
    attributes: deviceAndDirection,
    table: "disk_io",
    columns: ["read_time_ms", "write_time_ms"],
  },
  {
    name: "system.disk.io_time",
    type: "sum",
    unit: "s",
    description: "Time the device had at least one I/O in flight; over the interval it gives utilisation.",
    source: "linux:/proc/diskstats",
    attributes: ["system.device"],
    table: "disk_io",
    columns: ["io_time_ms"],
  },
  {
    name: "spindle.disk.weighted_io_time",
    type: "sum",
    unit: "s",
    description: "Integral of the queue length over time; over the interval it gives average queue depth.",
    source: "linux:/proc/diskstats",
    attributes: ["system.device"],
    table: "disk_io",
    columns: ["weighted_io_time_ms"],
  },
  {
    name: "spindle.disk.pending_operations",
    type: "gauge",
    unit: "{operation}",
    description: "I/Os in flight at sampling time.",
    source: "linux:/proc/diskstats",
    attributes: ["system.device"],
    table: "disk_io",
    columns: ["in_progress"],
  },
  {
    name: "system.memory.limit",
    type: "gauge",
    unit: "By",
    description: "Total usable memory.",
    source: "linux:/proc/meminfo",
    attributes: [],
    table: "memory",
    columns: ["total_bytes"],
  },
  {
    name: "system.memory.linux.available",
    type: "gauge",
    unit: "By",
    description: "Memory available for new work without swapping (MemAvailable).",
    source: "linux:/proc/meminfo",
    attributes: [],
    table: "memory",
    columns: ["available_bytes"],
  },
  {
    name: "system.memory.usage",
    type: "gauge",
    unit: "By",
    description: "Memory by state: free, page cache, buffers.",
    source: "linux:/proc/meminfo",
    attributes: ["system.memory.state"],
    table: "memory",
    columns: ["free_bytes", "cached_bytes", "buffers_bytes"],
  },
  {
    name: "spindle.memory.dirty",
    type: "gauge",
    unit: "By",
    description: "Page-cache memory waiting to be written back to disk.",
    source: "linux:/proc/meminfo",
    attributes: [],
    table: "memory",
    columns: ["dirty_bytes"],
  },
  {
    name: "system.paging.usage",
    type: "gauge",
    unit: "By",
    description: "Swap space: total (used + free) and free.",
    source: "linux:/proc/meminfo",
    attributes: ["system.paging.state"],
    table: "memory",
    columns: ["swap_total_bytes", "swap_free_bytes"],
  },
  {
    name: "spindle.agent.collector.duration",
    type: "gauge",
    unit: "s",
    description: "How long each collector took in the last interval.",
    source: "agent",
    attributes: ["collector"],
    table: null,
    columns: [],
  },
  {
    name: "spindle.agent.collector.success",
    type: "gauge",
    unit: "1",
    description: "1 when the collector succeeded in the last interval, 0 when it failed or is unsupported.",
    source: "agent",
    attributes: ["collector"],
    table: null,
    columns: [],
  },
  {
    name: "spindle.agent.spool.dropped_batches",
    type: "sum",
    unit: "{batch}",
    description: "Batches dropped because the spool reached its size bound.",
    source: "agent",
    attributes: [],
    table: null,
    columns: [],
  },
  {
    name: "spindle.disk.io.latency",
    type: "histogram",
    unit: "s",
    description: "Time from issue to the device to completion, per I/O, in log2 microsecond buckets.",
    source: "linux:ebpf",
    attributes: [...deviceAndDirection, "spindle.disk.operation"],
    table: null,
    columns: [],
  },
  {
    name: "spindle.disk.split_operations",
    type: "sum",
    unit: "{operation}",
    description: "Bios the block layer split because they exceeded the device's limits.",
    source: "linux:ebpf",
    attributes: ["system.device"],
    table: null,
    columns: [],
  },
  {
    name: "spindle.page_cache.accesses",
    type: "sum",
    unit: "{page}",
    description: "Pages read through the page cache plus faults on file mappings, system-wide.",
    source: "linux:ebpf",
    attributes: [],
    table: null,
    columns: [],
  },
  {
    name: "spindle.page_cache.misses",
    type: "sum",
    unit: "{page}",
    description: "Pages added to the page cache for reads (added minus dirtied), at most the accesses.",
    source: "linux:ebpf",
    attributes: [],
    table: null,
    columns: [],
  },
  {
    name: "spindle.agent.block_samples.kept",
    type: "sum",
    unit: "{sample}",
    description: "Sampled block I/Os kept in the agent's bounded ring.",
    source: "linux:ebpf",
    attributes: [],
    table: null,
    columns: [],
  },
  {
    name: "spindle.agent.block_samples.dropped",
    type: "sum",
    unit: "{sample}",
    description: "Sampled block I/Os lost, by reason.",
    source: "linux:ebpf",
    attributes: ["reason"],
    table: null,
    columns: [],
  },
] as const satisfies readonly MetricDefinition[];

export type MetricName = (typeof metricCatalogue)[number]["name"];

export function findMetric(name: string): MetricDefinition | undefined {
  return metricCatalogue.find((metric) => metric.name === name);
}
