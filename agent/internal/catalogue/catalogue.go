// Package catalogue lists every metric the agent sends: its OTLP name, unit and meaning.
// The metrics themselves (metrics_gen.go) are generated from the one catalogue,
// packages/domain/metrics/catalogue.json, by packages/domain/scripts/generate-catalogue.mjs:
// add or change a metric there, never here. This package keeps the types and attribute keys.
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
	AttrDevice      = "system.device"
	AttrDirection   = "disk.io.direction"
	AttrMemoryState = "system.memory.state"
	AttrPagingState = "system.paging.state"
	AttrCollector   = "collector"
	AttrMountpoint  = "system.filesystem.mountpoint"
	AttrFSType      = "system.filesystem.type"
	AttrFSState     = "system.filesystem.state"
	// AttrReadCacheBucket is the hash bucket (an int, 0-15) of spindle.read_cache.bucket.*.
	AttrReadCacheBucket = "spindle.read_cache.bucket"
	DirectionRead       = "read"
	DirectionWrite      = "write"
	ResourceBatchSeq    = "spindle.batch.seq"
	ResourceAgentID     = "spindle.agent.id"
	ResourceKernel      = "spindle.os.kernel"
	ResourceServiceName = "spindle-agent"
)
