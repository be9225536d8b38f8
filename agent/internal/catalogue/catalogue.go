// Package catalogue lists every metric the agent sends: its OTLP name, unit and meaning.
// It mirrors docs/metrics.md (the wire contract with the gateway) and
// packages/domain/src/metrics/catalogue.ts; a name changes in all three or in none.
//
// Each metric is typed by how it is recorded (integer or float, counter or gauge), so a
// collector cannot record a gauge as a counter or a float into an integer column.
package catalogue

// Metric describes one OTLP metric.
type Metric struct {
	Name        string
	Unit        string
	Description string
}

// IntCounter is a monotonic integer sum; collectors add the delta over the interval.
type IntCounter struct{ Metric }

// FloatCounter is a monotonic float sum; collectors add the delta over the interval.
type FloatCounter struct{ Metric }

// IntGauge is an integer value sampled at the end of the interval.
type IntGauge struct{ Metric }

// FloatGauge is a float value sampled at the end of the interval.
type FloatGauge struct{ Metric }

// Attribute keys, as OpenTelemetry semantic conventions spell them where one exists.
const (
	AttrDevice          = "system.device"
	AttrDirection       = "disk.io.direction"
	AttrMemoryState     = "system.memory.state"
	AttrPagingState     = "system.paging.state"
	AttrCollector       = "collector"
	DirectionRead       = "read"
	DirectionWrite      = "write"
	ResourceBatchSeq    = "spindle.batch.seq"
	ResourceAgentID     = "spindle.agent.id"
	ResourceKernel      = "spindle.os.kernel"
	ResourceServiceName = "spindle-agent"
)

// Disk I/O per block device (table disk_io).
var (
	DiskOperations = IntCounter{Metric{"system.disk.operations", "{operation}",
		"Disk operations completed, by direction."}}
	DiskIO = IntCounter{Metric{"system.disk.io", "By",
		"Bytes transferred, by direction (sectors x 512)."}}
	DiskMerged = IntCounter{Metric{"system.disk.merged", "{operation}",
		"Adjacent operations merged by the kernel before they reached the device, by direction."}}
	DiskOperationTime = FloatCounter{Metric{"system.disk.operation_time", "s",
		"Time spent on completed operations, by direction."}}
	DiskIOTime = FloatCounter{Metric{"system.disk.io_time", "s",
		"Time the device had I/O in flight (utilisation)."}}
	DiskWeightedIOTime = FloatCounter{Metric{"spindle.disk.weighted_io_time", "s",
		"Time-weighted number of I/Os in flight (integral of queue length; average queue depth)."}}
	DiskPendingOperations = IntGauge{Metric{"spindle.disk.pending_operations", "{operation}",
		"I/Os in flight at sampling time."}}
)

// Memory (table memory).
var (
	MemoryLimit = IntGauge{Metric{"system.memory.limit", "By",
		"Total usable memory."}}
	MemoryAvailable = IntGauge{Metric{"system.memory.linux.available", "By",
		"Memory available for starting new applications without swapping (MemAvailable)."}}
	MemoryUsage = IntGauge{Metric{"system.memory.usage", "By",
		"Memory by state: free, cached (page cache), buffers."}}
	MemoryDirty = IntGauge{Metric{"spindle.memory.dirty", "By",
		"Memory waiting to be written back to disk."}}
	PagingUsage = IntGauge{Metric{"system.paging.usage", "By",
		"Swap space by state: used, free."}}
)

// Agent self-telemetry. The gateway accepts and ignores these until a table stores them.
var (
	CollectorDuration = FloatGauge{Metric{"spindle.agent.collector.duration", "s",
		"How long the collector took this interval."}}
	CollectorSuccess = IntGauge{Metric{"spindle.agent.collector.success", "1",
		"1 if the collector succeeded this interval, 0 if it failed or is unsupported here."}}
	SpoolDroppedBatches = IntCounter{Metric{"spindle.agent.spool.dropped_batches", "{batch}",
		"Batches dropped from the spool because it exceeded its size bound."}}
)

// IntCounters, FloatCounters, IntGauges and FloatGauges list every metric by kind, so the
// exporter can create each instrument once at start-up.
var (
	IntCounters = []IntCounter{DiskOperations, DiskIO, DiskMerged, SpoolDroppedBatches,
		DiskSplitOperations, PageCacheAccesses, PageCacheMisses, BlockSamplesKept, BlockSamplesDropped,
		PostgreSQLCommits, PostgreSQLRollbacks, PostgreSQLBlocksHit, PostgreSQLBlocksRead, PostgreSQLIOOperations}
	FloatCounters = []FloatCounter{DiskOperationTime, DiskIOTime, DiskWeightedIOTime,
		PostgreSQLBlockReadTime, PressureStallTime}
	IntGauges = []IntGauge{DiskPendingOperations, MemoryLimit, MemoryAvailable, MemoryUsage,
		MemoryDirty, PagingUsage, CollectorSuccess,
		FragmentationFiles, FragmentationFragmentedFiles, FragmentationExtents, FragmentationExcessExtents,
		FragmentationUnsupportedFiles, FragmentationFileExtents}
	FloatGauges = []FloatGauge{CollectorDuration, FragmentationScanDuration}
)
