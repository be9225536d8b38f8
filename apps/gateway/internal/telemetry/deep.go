package telemetry

import "time"

// LatencyBuckets is the number of buckets of spindle.disk.io.latency (27 explicit bounds).
const LatencyBuckets = 28

// Deep holds one batch's deep Linux telemetry (docs/metrics.md): eBPF latency histograms, split
// I/O, page-cache hits, fragmentation scans, PostgreSQL statistics, pressure stall time, and the
// capabilities the agent reported. Empty slices mean the agent did not send that family.
type Deep struct {
	DiskLatency   []DiskLatencyRow
	DiskUntimed   []DiskUntimedRow
	DiskSplit     []DiskSplitRow
	PageCache     []PageCacheRow
	PgDatabase    []PgDatabaseRow
	Pressure      []PressureRow
	Fragmentation []FragmentationScan
	// PageCacheTopFiles is the newest interval's top files; nil when the batch carried none.
	PageCacheTopFiles *PageCacheTopFiles
	// Capabilities is spindle.agent.capabilities; nil when the resource did not carry it.
	Capabilities []string
	// ReadCache and WriteOpt are the acceleration features' rows (one per interval);
	// ReadCacheHoldout the read cache's control-group counts (one per interval it counted them).
	ReadCache        []AccelRow
	ReadCacheHoldout []AccelRow
	WriteOpt         []AccelRow
	// ReadCacheHoldoutBuckets: the control group's counters per hash bucket of page groups, all
	// 16 buckets of each interval that carried them.
	ReadCacheHoldoutBuckets []ReadCacheHoldoutBucketRow
	// WriteOptFiles is the newest managed-file extent list; nil when the batch carried none.
	WriteOptFiles *WriteOptFiles
	// Filesystems and AgentSpool: space of mounted file systems and the agent's spool backlog.
	Filesystems []FilesystemRow
	AgentSpool  []AgentSpoolRow
	// SQLServer: each SQL Server instance's statistics (Windows performance counters).
	SQLServer []SQLServerRow
}

// Rows counts the time-series rows in d (fragmentation counts one per root).
func (d Deep) Rows() int {
	return len(d.DiskLatency) + len(d.DiskUntimed) + len(d.DiskSplit) + len(d.PageCache) + len(d.PgDatabase) + len(d.Pressure) + len(d.Fragmentation) +
		len(d.ReadCache) + len(d.ReadCacheHoldout) + len(d.ReadCacheHoldoutBuckets) + len(d.WriteOpt) + len(d.Filesystems) + len(d.AgentSpool) + len(d.SQLServer)
}

// HoldoutBuckets is how many hash buckets the agent counts the read cache's groups in
// (spindle.read_cache.bucket: 0-15).
const HoldoutBuckets = 16

// ReadCacheHoldoutBucketRow is one hash bucket's counters of both groups over one interval, in
// bytes (spindle.read_cache.bucket.*; table read_cache_holdout_bucket).
type ReadCacheHoldoutBucketRow struct {
	Time                           time.Time
	HashBucket                     int16
	IntervalSeconds                float64
	ManagedAccessed, ManagedMissed int64
	ControlAccessed, ControlMissed int64
}

// DiskLatencyRow is one device's latency histogram for one operation over one interval.
type DiskLatencyRow struct {
	Time            time.Time
	Device          string
	Operation       string // read, write, flush or discard
	IntervalSeconds float64
	Operations      int64 // the histogram's count
	SumSeconds      float64
	Buckets         [LatencyBuckets]int64
}

// DiskUntimedRow is the I/Os one device completed in one interval that its latency histogram of
// the same operation does not hold (spindle.disk.io.untimed). An agent that counts them sends a
// row (0 included) with every read, write and discard histogram, and one without a histogram when
// not 0; a histogram without a row was not measured.
type DiskUntimedRow struct {
	Time            time.Time
	Device          string
	Operation       string // read, write or discard
	IntervalSeconds float64
	UntimedOps      int64
}

// DiskSplitRow is one device's split bios over one interval.
type DiskSplitRow struct {
	Time            time.Time
	Device          string
	IntervalSeconds float64
	SplitOps        int64
}

// PageCacheRow is the system-wide page-cache accesses and misses over one interval.
type PageCacheRow struct {
	Time            time.Time
	IntervalSeconds float64
	Accesses        int64
	Misses          int64
}

// PgDatabaseRow is one database's pg_stat_database deltas over one interval.
type PgDatabaseRow struct {
	Time                time.Time
	Database            string
	IntervalSeconds     float64
	Commits             int64
	Rollbacks           int64
	BlocksHit           int64
	BlocksRead          int64
	BlockReadTimeMicros Measured // not sent by agents that cannot read it
}

// SQLServerRow is one SQL Server instance over one interval. BatchRequests is not measured on the
// first interval after the agent or the instance started; BufferCacheHitRatio is nil while the
// instance has read no page.
type SQLServerRow struct {
	Time                      time.Time
	Instance                  string
	IntervalSeconds           float64
	BatchRequests             Measured
	BufferCacheHitRatio       *float64
	PageLifeExpectancySeconds int64
}

// PressureRow is the stall time over one interval; nil where the kernel reported nothing.
type PressureRow struct {
	Time             time.Time
	IntervalSeconds  float64
	MemorySomeMicros *int64
	MemoryFullMicros *int64
	IOSomeMicros     *int64
	IOFullMicros     *int64
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
