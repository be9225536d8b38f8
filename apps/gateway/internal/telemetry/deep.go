package telemetry

import "time"

// LatencyBuckets is the number of buckets of spindle.disk.io.latency (27 explicit bounds).
const LatencyBuckets = 28

// Deep holds one batch's deep Linux telemetry (docs/metrics.md): eBPF latency histograms, split
// I/O, page-cache hits, fragmentation scans, PostgreSQL statistics, pressure stall time, and the
// capabilities the agent reported. Empty slices mean the agent did not send that family.
type Deep struct {
	// Intervals are the rows of the interval families (families_gen.go): latency histograms,
	// untimed and split I/Os, page-cache counts, PostgreSQL and SQL Server statistics, pressure,
	// file systems, the agent's spool, and the acceleration features' rows.
	Intervals
	Fragmentation []FragmentationScan
	// PageCacheTopFiles is the newest interval's top files; nil when the batch carried none.
	PageCacheTopFiles *PageCacheTopFiles
	// Capabilities is spindle.agent.capabilities; nil when the resource did not carry it.
	Capabilities []string
	// WriteOptFiles is the newest managed-file extent list; nil when the batch carried none.
	WriteOptFiles *WriteOptFiles
}

// Rows counts the time-series rows in d (fragmentation counts one per root).
func (d Deep) Rows() int {
	return d.Intervals.Rows() + len(d.Fragmentation)
}

// FragmentationScan is the last complete scan of one root as the agent reported it. Summary is
// false when only worst files arrived for the root.
type FragmentationScan struct {
	Time            time.Time
	Root            string
	Summary         bool
	Files           int64
	FragmentedFiles int64
	Extents         int64
	ExcessExtents   int64
	// UnsupportedFiles were skipped (no FIEMAP on their file system); nil: not reported.
	UnsupportedFiles *int64
	ScanDurationMs   Measured
	WorstFiles       []FragmentedFile // nil: not reported in this batch
}

// PageCacheTopFiles are the files with the most page-cache accesses over one interval, most
// accesses first.
type PageCacheTopFiles struct {
	Time            time.Time // the end of the interval
	IntervalSeconds float64
	Files           []PageCacheFile
}

// PageCacheFile is one file's page-cache use over the interval; Misses <= Accesses.
type PageCacheFile struct {
	Path     string
	Accesses int64
	Misses   int64
}

// FragmentedFile is one of the worst files of a scan.
type FragmentedFile struct {
	Path      string
	Extents   int64
	SizeBytes int64
}

// HoldoutBuckets is how many hash buckets the agent counts the read cache's groups in
// (spindle.read_cache.bucket: 0-15; rows of ReadCacheHoldoutBuckets).
const HoldoutBuckets = 16
