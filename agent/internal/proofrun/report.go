package proofrun

import (
	"context"
	"time"
)

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
	// PassOrder is the sides of the passes in the order they ran (or began, when the run
	// stopped in one): for A/B the warm-up pass, then off, on, on, off per block.
	PassOrder []Side `json:"passOrder"`
	// WarmUpPasses are the first passes of PassOrder: measured and kept, never compared (the
	// first pass of a run meets colder state than any later one: device, file system,
	// PostgreSQL's shared buffers).
	WarmUpPasses int `json:"warmUpPasses"`
	// Alternation says how many blocks ran, why the runner stopped adding them, and how the
	// intervals were formed; null without A/B.
	Alternation      *Alternation `json:"alternation"`
	TimeLimitSeconds float64      `json:"timeLimitSeconds"`
	// Throughput names the step's main figure: "iops" (generator) or "tps" (pgbench).
	Throughput          string  `json:"throughput"`
	LatencyLimitSeconds float64 `json:"latencyLimitSeconds"`
	StepSeconds         float64 `json:"stepSeconds"`
	Device              Device  `json:"device"`
	Files               []File  `json:"files"`
	Steps               []Step  `json:"steps"`
	// Overall is the change across all steps (per pass, the mean over the steps of the figure's
	// logarithm, i.e. the geometric mean): the run's headline; null without A/B.
	Overall    *Change `json:"overall"`
	Saturation struct {
		Off *Saturation `json:"off"`
		On  *Saturation `json:"on"` // null without A/B
	} `json:"saturation"`
	// Reads says where each side's reads were served from (a description), per pass, and what
	// the features caused: the change in storage reads between the off and on passes.
	Reads struct {
		Off    *ReadPlacement `json:"off"`
		On     *ReadPlacement `json:"on"`
		Passes []PassReads    `json:"passes"`
		Caused *CausedReads   `json:"caused"` // null without A/B
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
	Index    int    `json:"index"` // 1-based
	Workload string `json:"workload"`
	Load     Load   `json:"load"`
	Label    string `json:"label"` // e.g. "random read 64 KiB, 2 x 4"
	// Off and On are the means over each side's compared passes (the warm-up excluded).
	Off *Result `json:"off"`
	On  *Result `json:"on"` // null without A/B
	// Passes are this step's measurements in every pass that reached it, in run order, the
	// warm-up included.
	Passes []PassResult `json:"passes"`
	// Change of on over off with intervals; null without A/B.
	Change *Change `json:"change"`
}

// PassResult is one step in one pass.
type PassResult struct {
	Pass   int  `json:"pass"` // 1-based position in Report.PassOrder
	Side   Side `json:"side"`
	WarmUp bool `json:"warmUp,omitempty"`
	// Throughput is IOPS or TPS, as Report.Throughput names it.
	Throughput         float64 `json:"throughput"`
	MBps               float64 `json:"mbps"`
	LatencyMeanSeconds float64 `json:"latencyMeanSeconds"`
	LatencyP95Seconds  float64 `json:"latencyP95Seconds"`
	LatencyP99Seconds  float64 `json:"latencyP99Seconds"`
	Operations         int64   `json:"operations"`
}

// Result is one side of one step: the mean over that side's compared passes.
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

// Change compares on with off, in percent of off: throughput (positive = more) and mean
// response time (negative = faster).
type Change struct {
	Throughput  Difference `json:"throughput"`
	LatencyMean Difference `json:"latencyMean"`
}

// DifferenceStatus says what a Difference can claim.
type DifferenceStatus string

const (
	// Measured: the interval lies wholly on one side of 0.
	Measured DifferenceStatus = "measured"
	// NoMeasurableDifference: the interval includes 0; the estimate is not a finding.
	NoMeasurableDifference DifferenceStatus = "no-measurable-difference"
	// NotMeasured: no interval could be formed (Reason says why); no figure is stated.
	NotMeasured DifferenceStatus = "not-measured"
)

// Difference is on against off for one figure with its interval. Percent, LowPercent and
// HighPercent are null when not measured.
type Difference struct {
	Status      DifferenceStatus `json:"status"`
	Percent     *float64         `json:"percent"`
	LowPercent  *float64         `json:"lowPercent"`
	HighPercent *float64         `json:"highPercent"`
	// Pairs are the adjacent off/on pass pairs it rests on.
	Pairs  int    `json:"pairs"`
	Reason string `json:"reason,omitempty"`
}

// Alternation is how an A/B run's passes were arranged and its intervals formed.
type Alternation struct {
	// Blocks of off, on, on, off finished after the warm-up pass.
	Blocks int `json:"blocks"`
	// TargetHalfWidthPercent is what the run aimed at: every step interval within ± this.
	TargetHalfWidthPercent float64 `json:"targetHalfWidthPercent"`
	// WidestHalfWidthPercent is the widest step interval at the end; null when none was formed.
	WidestHalfWidthPercent *float64 `json:"widestHalfWidthPercent"`
	// StopReason is "target", "time-limit", "block-limit" or "incomplete"; Stop says it in words.
	StopReason string `json:"stopReason"`
	Stop       string `json:"stop"`
	// ConfidencePercent holds for all the step and overall intervals together (Bonferroni over
	// IntervalsInFamily of them); the read and write-path intervals are 95 % each.
	ConfidencePercent float64 `json:"confidencePercent"`
	IntervalsInFamily int     `json:"intervalsInFamily"`
	Method            string  `json:"method"`
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

// PassReads are one pass's read I/Os by where they were served from, over all its steps.
type PassReads struct {
	Pass         int   `json:"pass"`
	Side         Side  `json:"side"`
	WarmUp       bool  `json:"warmUp,omitempty"`
	StorageReads int64 `json:"storageReads"`
	MemoryReads  int64 `json:"memoryReads"`
}

// CausedReads is what the read cache caused: the share of read I/Os that went to storage, with
// the features on against off, compared pass pair by pass pair; and the storage reads that
// change saved over the "on" passes (positive = fewer storage reads). Status NotMeasured (with
// Reason) leaves every figure null.
type CausedReads struct {
	Status DifferenceStatus `json:"status"`
	Reason string           `json:"reason,omitempty"`
	// StorageSharePercent without and with: the mean over the compared passes of each side.
	StorageSharePercentOff *float64 `json:"storageSharePercentOff"`
	StorageSharePercentOn  *float64 `json:"storageSharePercentOn"`
	// ShareChangePoints is on − off in percentage points, with its 95 % interval.
	ShareChangePoints     *float64 `json:"shareChangePoints"`
	ShareChangeLowPoints  *float64 `json:"shareChangeLowPoints"`
	ShareChangeHighPoints *float64 `json:"shareChangeHighPoints"`
	// ReadsWith are the read I/Os over the compared "on" passes; StorageReadsSaved =
	// ReadsWith × (share off − share on), with the interval that follows from the share's.
	ReadsWith             int64    `json:"readsWith"`
	StorageReadsSaved     *float64 `json:"storageReadsSaved"`
	StorageReadsSavedLow  *float64 `json:"storageReadsSavedLow"`
	StorageReadsSavedHigh *float64 `json:"storageReadsSavedHigh"`
	Pairs                 int      `json:"pairs"`
	Basis                 string   `json:"basis"`
}

// WritePath is the growing log file's fragments with and without write optimisation.
type WritePath struct {
	// ExtentsOff/On are the log file's extents (FIEMAP, merged like filefrag) at the end of each
	// compared pass of that side, in pass order; ExtentsWarmUp those of the warm-up pass.
	ExtentsOff    []int `json:"extentsOff"`
	ExtentsOn     []int `json:"extentsOn"`
	ExtentsWarmUp []int `json:"extentsWarmUp,omitempty"`
	// FragmentsPrevented is 100 × (off − on) / mean off extents per log file, with its 95 %
	// interval; NotMeasured with "too few files to tell" when no interval can be formed.
	FragmentsPrevented Difference `json:"fragmentsPrevented"`
	Basis              string     `json:"basis"`
}

// AcceleratorStats are the features' own counters over the "on" passes.
type AcceleratorStats struct {
	ReadCacheBudgetBytes     int64 `json:"readCacheBudgetBytes"`
	ReadCachePrefetchedBytes int64 `json:"readCachePrefetchedBytes"`
	ReadCacheResidentBytes   int64 `json:"readCacheResidentBytes"` // at the end of the last on pass
	// Budget and resident bytes are the state at the end of the last "on" pass; the others are
	// counted over the whole run.
	ReadCacheMissBytes int64 `json:"readCacheMissBytes"`
	ReadCacheBackoffs  int64 `json:"readCacheBackoffs"`
	// ReadCacheDroppedBehindBytes: resident bytes the cache dropped behind sequential scanners.
	ReadCacheDroppedBehindBytes int64  `json:"readCacheDroppedBehindBytes"`
	PreallocatedBytes           int64  `json:"preallocatedBytes"`
	FragmentsPrevented          int64  `json:"fragmentsPrevented"`
	LastError                   string `json:"lastError,omitempty"`
}

// Targets are the proof run's files the features are switched on for.
type Targets struct {
	DataFiles []string // read cache: managed (and prefetched) within BudgetBytes
	// LogDir and LogPattern: write optimisation preallocates growing files matching the pattern.
	LogDir          string
	LogPattern      string
	BudgetBytes     int64
	PreallocChunk   int64
	ScanResistBytes int64
}

// Accelerator switches the agent's acceleration features on and off for the proof run's files.
// NewAccelerator returns the real features (agent/internal/accel); Enable and Disable are
// called between passes, Stats after each.
type Accelerator interface {
	Enable(ctx context.Context, t Targets) error
	Disable(ctx context.Context) error
	// Stats are cumulative since the accelerator was made.
	Stats() AcceleratorStats
	Close() error
}
