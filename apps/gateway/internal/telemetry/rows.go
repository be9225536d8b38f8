// Package telemetry holds the rows the gateway writes (docs/metrics.md). The row type, COPY
// columns and values of each metric family are generated from its declaration
// (families_gen.go, from packages/domain/metrics/catalogue.json); the ingest package produces
// the rows from OTLP, the store package copies them into PostgreSQL; neither needs to know
// about the other.
package telemetry

import (
	"database/sql"
)

// Measured is a value the agent sent, or, with Valid false, one it did not send: stored as
// NULL (not measured), never as 0, so an OS without merge counters never shows "0 merges".
type Measured = sql.Null[int64]

// Measure is a value the agent sent.
func Measure(v int64) Measured { return Measured{V: v, Valid: true} }

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
