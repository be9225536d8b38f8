// Package telemetry holds the rows the gateway writes: one wide row per device and interval in
// disk_io, one per interval in memory (docs/metrics.md). The ingest package produces them from
// OTLP, the store package copies them into PostgreSQL; neither needs to know about the other.
package telemetry

import (
	"database/sql"
	"time"
)

// Measured is a value the agent sent, or, with Valid false, one it did not send: stored as
// NULL (not measured), never as 0, so an OS without merge counters never shows "0 merges".
type Measured = sql.Null[int64]

// Measure is a value the agent sent.
func Measure(v int64) Measured { return Measured{V: v, Valid: true} }

// DiskIORow is one device over one sampling interval. Counters are deltas over the interval.
type DiskIORow struct {
	Time             time.Time // end of the interval
	Device           string
	IntervalSeconds  float64
	ReadOps          Measured
	WriteOps         Measured
	ReadBytes        Measured
	WriteBytes       Measured
	ReadMerged       Measured
	WriteMerged      Measured
	ReadTimeMs       Measured
	WriteTimeMs      Measured
	IOTimeMs         Measured
	WeightedIOTimeMs Measured
	InProgress       sql.Null[int32]
}

// MemoryRow is one memory snapshot (gauges) at Time.
type MemoryRow struct {
	Time           time.Time
	TotalBytes     Measured
	AvailableBytes Measured
	FreeBytes      Measured
	CachedBytes    Measured
	BuffersBytes   Measured
	DirtyBytes     Measured
	SwapTotalBytes Measured // used + free: measured only when both were sent
	SwapFreeBytes  Measured
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
	// MissRatioCurves are the curves whose window closed in this batch (cache_mrc).
	MissRatioCurves []MissRatioCurve
}
