// The shape of a metric catalogue entry. The entries themselves are generated into
// catalogue-data.ts from packages/domain/metrics/catalogue.json, the one source of truth.

export type MetricType = "sum" | "gauge" | "histogram";

export type MetricSource =
  | "linux:/proc/diskstats"
  | "linux:/proc/meminfo"
  | "linux:/proc/pressure"
  | "linux:ebpf"
  | "linux:fiemap"
  | "linux:statfs"
  | "postgresql:pg_stat_database"
  | "postgresql:pg_stat_io"
  | "windows:pdh"
  | "agent"
  | "agent:accel";

export type MetricTable =
  | "disk_io"
  | "memory"
  | "disk_latency"
  | "disk_io_untimed"
  | "disk_split_io"
  | "page_cache"
  | "page_cache_top_files"
  | "fragmentation_scans"
  | "fragmentation_worst_files"
  | "pg_database_stats"
  | "sqlserver_stats"
  | "pressure"
  | "read_cache"
  | "read_cache_holdout"
  | "read_cache_holdout_bucket"
  | "write_opt"
  | "write_opt_files"
  | "cache_mrc"
  | "filesystem"
  | "agent_spool";

export interface MetricDefinition {
  /** OTLP metric name: OpenTelemetry semantic convention where one exists, `spindle.*` otherwise. */
  name: string;
  type: MetricType;
  /** Whether points carry integers or doubles. */
  valueType: "int" | "double";
  /** UCUM unit as sent over OTLP. */
  unit: string;
  description: string;
  source: MetricSource;
  /** OTLP data point attributes, besides the resource. */
  attributes: readonly string[];
  /** Where the gateway stores it; null while the gateway accepts and ignores the metric. */
  table: MetricTable | null;
  /** Table columns, in attribute order (e.g. read then write for `disk.io.direction`). */
  columns: readonly string[];
  /** Histograms only: the explicit bucket upper bounds, in the metric's unit. */
  bounds?: readonly number[];
}

/** Something an agent reports as working (resource attribute `spindle.agent.capabilities`). */
export interface CapabilityDefinition {
  name: string;
  /** What the console calls it. */
  label: string;
  /** Why it is usually missing and what to do, for the console (the agent's status says exactly why). */
  whenMissing: string;
  /** The metrics that are absent while the capability is missing. */
  metrics: readonly string[];
}
