// The one list of every metric Spindle collects: what the agent sends (OTLP name, type, unit,
// attributes), where the gateway stores it, and which columns hold it. docs/metrics.md is the
// prose version of this file; a metric added here must be added there too (catalogue.test.ts
// checks the two name the same metrics).

export type MetricType = "sum" | "gauge";

export type MetricSource = "linux:/proc/diskstats" | "linux:/proc/meminfo";

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
  table: "disk_io" | "memory";
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
] as const satisfies readonly MetricDefinition[];

export type MetricName = (typeof metricCatalogue)[number]["name"];

export function findMetric(name: string): MetricDefinition | undefined {
  return metricCatalogue.find((metric) => metric.name === name);
}
