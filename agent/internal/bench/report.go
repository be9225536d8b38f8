package bench

import (
	"context"
	"time"
)

// Side names a pass's state of the acceleration features.
type Side string

const (
	Off Side = "off"
	On  Side = "on"
)

// Phase is where a run is.
type Phase string

const (
	PhasePreparing Phase = "preparing" // checking paths and space, writing the data files
	PhaseRunning   Phase = "running"   // measuring load steps
	PhaseCleaning  Phase = "cleaning"  // removing the run's files
	PhaseDone      Phase = "done"
)

// Progress is reported at every phase change and step start, and a few times per step.
type Progress struct {
	Phase Phase `json:"phase"`
	// Pass is 1-based (0 while preparing); Passes is 4 for A/B, 1 otherwise.
	Pass   int  `json:"pass"`
	Passes int  `json:"passes"`
	Side   Side `json:"side,omitempty"` // the features' state in this pass
	// Step is 1-based within the pass; Steps per pass.
	Step      int    `json:"step"`
	Steps     int    `json:"steps"`
	StepLabel string `json:"stepLabel,omitempty"`
	// Fraction is the share of the whole run done, 0 to 1, by planned time.
	Fraction float64 `json:"fraction"`
	Message  string  `json:"message,omitempty"`
}

// Report is a finished (or stopped) run, shaped like the seed reports: per load step the
// throughput and response time with and without, the improvement, the saturation point, where
// the reads went, and the write-path effect. A figure that was not measured is null (or a
// side is absent), never 0.
type Report struct {
	Profile     string    `json:"profile"`
	Description string    `json:"description"`
	StartedAt   time.Time `json:"startedAt"`
	EndedAt     time.Time `json:"endedAt"`
	// Complete is false when the run stopped early (cancelled, time limit, error); Stopped says why.
	Complete bool   `json:"complete"`
	Stopped  string `json:"stopped,omitempty"`
	AB       bool   `json:"ab"`
	DirectIO bool   `json:"directIO"`
	// PassOrder is the sides in the order they ran, e.g. off, on, on, off.
	PassOrder []Side `json:"passOrder"`
	// Throughput names the step's main figure: "iops" (generator) or "tps" (pgbench).
	Throughput          string  `json:"throughput"`
	LatencyLimitSeconds float64 `json:"latencyLimitSeconds"`
	StepSeconds         float64 `json:"stepSeconds"`
	Device              Device  `json:"device"`
	Files               []File  `json:"files"`
	Steps               []Step  `json:"steps"`
	Saturation          struct {
		Off *Saturation `json:"off"`
		On  *Saturation `json:"on"` // null without A/B
	} `json:"saturation"`
	// Reads says where each side's reads were served from.
	Reads struct {
		Off *ReadPlacement `json:"off"`
		On  *ReadPlacement `json:"on"`
	} `json:"reads"`
	// WritePath is the log file's fragmentation with and without write optimisation; null for
	// profiles without a growing file.
	WritePath *WritePath `json:"writePath"`
	// Accelerator is what the features reported over the "on" passes; null without A/B.
	Accelerator *AcceleratorStats `json:"accelerator"`
	Notes       []string          `json:"notes,omitempty"`
}

// Device is the block device and file system holding the data files.
type Device struct {
	Path        string `json:"path"`        // the scratch directory
	Name        string `json:"name"`        // e.g. "vda", "" when not found
	MajorMinor  string `json:"majorMinor"`  // st_dev, e.g. "254:0"
	FileSystem  string `json:"fileSystem"`  // e.g. "ext4"
	TotalBytes  int64  `json:"totalBytes"`  // of the file system
	FreeBytesAt int64  `json:"freeBytesAt"` // free (for unprivileged users) before the run
}

// File is one file the run created (and removed afterwards).
type File struct {
	Role  string `json:"role"` // "data" or "log"
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"` // size when created (data) or largest size reached (log)
}

// Step is one load step: the load and the measurements with the features off and on.
type Step struct {
	Index    int     `json:"index"` // 1-based
	Workload string  `json:"workload"`
	Load     Load    `json:"load"`
	Label    string  `json:"label"` // e.g. "random read 64 KiB, 2 x 4"
	Off      *Result `json:"off"`
	On       *Result `json:"on"` // null without A/B
	// Improvement of on over off; null when either side is missing.
	Improvement *Improvement `json:"improvement"`
}

// Result is one side of one step: the mean over that side's passes.
type Result struct {
	IOPS float64 `json:"iops"`
	MBps float64 `json:"mbps"` // 10^6 bytes per second
	// TPS is pgbench's transactions per second (null for the generator).
	TPS                *float64 `json:"tps"`
	LatencyMeanSeconds float64  `json:"latencyMeanSeconds"`
	LatencyP95Seconds  float64  `json:"latencyP95Seconds"`
	LatencyP99Seconds  float64  `json:"latencyP99Seconds"`
	Operations         int64    `json:"operations"` // I/Os (or transactions), summed over passes
	Bytes              int64    `json:"bytes"`
	Passes             int      `json:"passes"`
	// LogWrites are the transaction-log writer's appends (oltp only); its latency is not mixed in.
	LogWrites int64 `json:"logWrites,omitempty"`
}

// Improvement compares on with off for one step, in percent of off.
type Improvement struct {
	ThroughputPercent  float64 `json:"throughputPercent"`  // (on - off) / off
	LatencyMeanPercent float64 `json:"latencyMeanPercent"` // negative = faster
}

// Saturation is the first step whose mean latency crosses the limit, or Reached false.
type Saturation struct {
	Reached            bool     `json:"reached"`
	Step               *int     `json:"step"` // Step.Index
	Label              string   `json:"label,omitempty"`
	LatencyMeanSeconds *float64 `json:"latencyMeanSeconds"`
}

// ReadPlacement says where one side's reads went. Measured false means the generator could not
// tell (direct I/O makes every read a storage read, which is then stated; pgbench reads are
// not seen) and Basis says why; otherwise each buffered read was classified before it was
// issued by checking its pages' residency (mincore on a mapping of the file).
type ReadPlacement struct {
	Measured bool   `json:"measured"`
	Basis    string `json:"basis"`
	// StorageReads and MemoryReads count read I/Os; null when not measured.
	StorageReads *int64 `json:"storageReads"`
	MemoryReads  *int64 `json:"memoryReads"`
	// StorageReadPercent of read I/Os went (at least partly) to storage.
	StorageReadPercent *float64 `json:"storageReadPercent"`
	// Mean latency per tier, measured on the I/Os of that tier; null when none were seen.
	StorageLatencySeconds *float64 `json:"storageLatencySeconds"`
	MemoryLatencySeconds  *float64 `json:"memoryLatencySeconds"`
	LatencySource         string   `json:"latencySource"`
}

// WritePath is the growing log file's fragments with and without write optimisation.
type WritePath struct {
	// ExtentsOff/On are the log file's extents (FIEMAP, merged like filefrag) at the end of each
	// pass of that side, in pass order.
	ExtentsOff []int `json:"extentsOff"`
	ExtentsOn  []int `json:"extentsOn"`
	// FragmentsPreventedPercent is 100 x (1 - mean on / mean off); null when off made none.
	FragmentsPreventedPercent *float64 `json:"fragmentsPreventedPercent"`
	Basis                     string   `json:"basis"`
}

// AcceleratorStats are the features' own counters over the "on" passes.
type AcceleratorStats struct {
	ReadCacheBudgetBytes     int64 `json:"readCacheBudgetBytes"`
	ReadCachePrefetchedBytes int64 `json:"readCachePrefetchedBytes"`
	ReadCacheResidentBytes   int64 `json:"readCacheResidentBytes"` // at the end of the last on pass
	// Budget and resident bytes are the state at the end of the last "on" pass; the others are
	// counted over the whole run.
	ReadCacheMissBytes int64  `json:"readCacheMissBytes"`
	ReadCacheBackoffs  int64  `json:"readCacheBackoffs"`
	PreallocatedBytes  int64  `json:"preallocatedBytes"`
	FragmentsPrevented int64  `json:"fragmentsPrevented"`
	LastError          string `json:"lastError,omitempty"`
}

// Targets are the benchmark's files the features are switched on for.
type Targets struct {
	DataFiles []string // read cache: managed (and prefetched) within BudgetBytes
	// LogDir and LogPattern: write optimisation preallocates growing files matching the pattern.
	LogDir          string
	LogPattern      string
	BudgetBytes     int64
	PreallocChunk   int64
	ScanResistBytes int64
}

// Accelerator switches the agent's acceleration features on and off for the benchmark's files.
// NewAccelerator returns the real features (agent/internal/accel); Enable and Disable are
// called between passes, Stats after each.
type Accelerator interface {
	Enable(ctx context.Context, t Targets) error
	Disable(ctx context.Context) error
	// Stats are cumulative since the accelerator was made.
	Stats() AcceleratorStats
	Close() error
}
