// Package telemetry holds the rows the gateway writes: one wide row per device and interval in
// disk_io, one per interval in memory (docs/metrics.md). The ingest package produces them from
// OTLP, the store package copies them into PostgreSQL; neither needs to know about the other.
package telemetry

import "time"

// DiskIORow is one device over one sampling interval. Counters are deltas over the interval.
type DiskIORow struct {
	Time             time.Time // end of the interval
	Device           string
	IntervalSeconds  float64
	ReadOps          int64
	WriteOps         int64
	ReadBytes        int64
	WriteBytes       int64
	ReadMerged       int64
	WriteMerged      int64
	ReadTimeMs       int64
	WriteTimeMs      int64
	IOTimeMs         int64
	WeightedIOTimeMs int64
	InProgress       int32
}

// MemoryRow is one memory snapshot (gauges) at Time.
type MemoryRow struct {
	Time           time.Time
	TotalBytes     int64
	AvailableBytes int64
	FreeBytes      int64
	CachedBytes    int64
	BuffersBytes   int64
	DirtyBytes     int64
	SwapTotalBytes int64
	SwapFreeBytes  int64
}

// HostInfo is what an agent says about its host in resource attributes. Empty fields are
// unknown and leave the stored value alone.
type HostInfo struct {
	Hostname     string // host.name
	OS           string // os.type
	OSVersion    string // os.description
	Kernel       string // spindle.os.kernel
	Arch         string // host.arch
	AgentVersion string // service.version
}

// Batch is one ResourceMetrics: the unit of exactly-once delivery, identified by the agent's
// strictly increasing spindle.batch.seq.
type Batch struct {
	Seq int64
	// Digest is the SHA-256 of what the batch stores (ingest computes it from the rows): a batch
	// resent after a lost acknowledgement has the same one, a different batch that reuses the
	// number (a wiped or cloned agent) almost surely not.
	Digest [32]byte
	Host   HostInfo
	DiskIO []DiskIORow
	Memory []MemoryRow
	Deep   Deep
}
