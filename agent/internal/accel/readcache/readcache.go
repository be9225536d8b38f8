// Package readcache is the managed read cache (Linux): it keeps the hot set of the files a
// policy includes resident in the page cache, within a budget that follows available memory.
//
// Every SampleInterval the feature
//
//  1. reads memory (memlimit): MemAvailable narrowed by the agent's cgroup limit, and PSI;
//     budget = policy.EffectiveReadCacheBudgetBytes of that (plus what the cache itself has
//     locked, which the kernel no longer counts as available);
//  2. measures each managed file's residency with mincore and updates its heat;
//  3. drops pages behind large sequential readers: a file outside the hot set that has paged
//     in more than scanResistanceThresholdBytes over consecutive samples, each filling at least
//     half of the range it spans (random reads never do), gets
//     POSIX_FADV_DONTNEED on everything more than DropBehindKeepBytes behind the reader's
//     newest page, so one backup scan cannot push the hot set out;
//  4. ranks the hot set: pinned files first (policy order), then the other managed files by
//     heat per byte, whole files, until the budget is full;
//  5. pins (mmap + mlock) the pinned files that fit and, with prefetch on, asks the kernel to
//     read the missing pages of the other hot files (POSIX_FADV_WILLNEED);
//  6. backs off at once when MemAvailable (or the cgroup) leaves less than the floor or PSI
//     "some avg10" exceeds PressureThresholdPercent: it munlocks, DONTNEEDs the coldest files,
//     and neither pins nor prefetches for BackoffHoldSamples samples.
//
// Heat without eBPF is residency-weighted recency: each sample adds the seconds a file's pages
// stayed resident (under pressure the kernel's LRU keeps only what is used) and RefaultWeight
// times the pages that came back after eviction (somebody read them again), and decays with a
// half-life of HeatHalfLife. An AccessSource (the eBPF per-file counters, later) adds real
// accesses and turns hit counting on.
//
// The agent owns the files' page cache only as far as the budget: it never evicts an
// application's cached pages except behind a scanner, or to give memory back in a backoff.
//
// What the cache caused is measured against a control group (holdout.go): where a GroupSource
// counts page groups apart (the page-cache eBPF program), readCache.holdoutPercent of the
// managed pages, drawn by hash, are left alone (no pin, prefetch, drop-behind or budget), and the
// counts of both groups go out as spindle.read_cache.managed.* and .control.*. Without one,
// nothing is held out: a control nobody can measure would only cost the cache its share.
package readcache

import (
	"log/slog"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel"
	"github.com/spindle-io/spindle/agent/internal/memlimit"
)

// ErrUnsupported is returned by New on systems without mincore/fadvise/mlock (not Linux).
var ErrUnsupported = accel.ErrUnsupported

// Config tunes the feature; the policy says what to cache, Config how often and how eagerly.
type Config struct {
	SampleInterval time.Duration // how often residency is measured; default 1 s
	// RescanInterval is how often the include patterns are walked again for new files; default 30 s.
	RescanInterval time.Duration
	// MaxFiles bounds the managed files (each costs a mincore per sample); default 100000.
	MaxFiles int
	// PressureThresholdPercent: PSI memory "some avg10" above this starts a backoff; default 10.
	PressureThresholdPercent float64
	// BackoffHoldSamples: after a backoff, no pinning or prefetching for this many samples; default 5.
	BackoffHoldSamples int
	// DropBehindKeepBytes stay resident just behind a scanner's newest page; default 4 MiB.
	DropBehindKeepBytes int64
	HeatHalfLife        time.Duration // default 60 s
	RefaultWeight       float64       // heat per page re-read after eviction; default 8
	// PrefetchRefresh: where residency cannot be measured (Windows), a hot file is read again
	// this long after its last prefetch; default 10 min.
	PrefetchRefresh time.Duration
	ProcPath        string       // default "/proc"
	Logger          *slog.Logger // default slog.Default()
}

func (c Config) withDefaults() Config {
	if c.SampleInterval <= 0 {
		c.SampleInterval = time.Second
	}
	if c.RescanInterval <= 0 {
		c.RescanInterval = 30 * time.Second
	}
	if c.MaxFiles <= 0 {
		c.MaxFiles = 100_000
	}
	if c.PressureThresholdPercent <= 0 {
		c.PressureThresholdPercent = 10
	}
	if c.BackoffHoldSamples <= 0 {
		c.BackoffHoldSamples = 5
	}
	if c.DropBehindKeepBytes <= 0 {
		c.DropBehindKeepBytes = 4 << 20
	}
	if c.HeatHalfLife <= 0 {
		c.HeatHalfLife = time.Minute
	}
	if c.RefaultWeight <= 0 {
		c.RefaultWeight = 8
	}
	if c.PrefetchRefresh <= 0 {
		c.PrefetchRefresh = 10 * time.Minute
	}
	if c.ProcPath == "" {
		c.ProcPath = "/proc"
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Deps are what the agent hands the feature. Both may be nil.
type Deps struct {
	// Memory reads available memory and pressure; nil detects this process's cgroup under
	// ProcPath (Linux), or reads GlobalMemoryStatusEx and the low-memory notification (Windows).
	Memory MemorySource
	// Access, when set, supplies per-file access counts (the eBPF hook).
	Access AccessSource
	// Groups, when set and measuring, counts the control group apart (the same eBPF program).
	Groups GroupSource
}

// GroupSource counts the managed files' page-cache events by page group (the page-cache eBPF
// program, spindle_holdout.h). Called from the read cache's sampling goroutine only.
type GroupSource interface {
	// Measuring is false when the program does not run: then nothing is held out.
	Measuring() bool
	// SetHoldout draws the control with h from now on (the zero Holdout: no control).
	SetHoldout(h Holdout) error
	// SetCacheThread names the OS thread whose page-cache additions are the cache's own, until
	// called again (0: none).
	SetCacheThread(tid int) error
	// GroupCounts makes files the ones counted and returns, per file, the pages since the
	// previous call (a file new to the list counts from now).
	GroupCounts(files []FileKey) (map[FileKey]GroupCounts, error)
	// BucketCounts returns both groups' pages per hash bucket of page groups (Holdout.Bucket)
	// since the previous call, over every file counted.
	BucketCounts() ([HoldoutBuckets]BucketCounts, error)
}

// BucketCounts are one hash bucket's pages of both groups over one sample interval, counted as
// GroupCounts' Managed and Control are.
type BucketCounts struct {
	ManagedAccessed, ManagedMissed int64
	ControlAccessed, ControlMissed int64
}

// GroupCounts are one file's pages over one sample interval. Managed and control count every
// thread but the cache's; a miss is a page read from storage into the page cache (pages added
// less pages dirtied, as the page-cache counters define it).
type GroupCounts struct {
	ManagedAccessed, ManagedMissed int64
	ControlAccessed, ControlMissed int64
	// OwnAdded are pages the cache's thread brought in; OwnHits the first accesses of another
	// thread to them while they stayed resident.
	OwnAdded, OwnHits int64
}

// MemorySource takes a snapshot of available memory and pressure (*memlimit.Reader on Linux).
type MemorySource interface {
	Read() (memlimit.Snapshot, error)
}

// AccessSource reports, per managed file path, the page accesses and the page misses (pages
// read from storage) since its previous call. Called once per sample, from one goroutine.
type AccessSource interface {
	FileAccesses(paths []string) map[string]FileAccess
}

// FileAccess is one file's page accesses and misses over one sample interval.
type FileAccess struct{ AccessedPages, MissedPages int64 }

// Stats are cumulative counters since New and the state at the last sample. Bytes throughout.
type Stats struct {
	Enabled       bool
	BudgetBytes   int64 // at the last sample
	HotSetBytes   int64 // size of the files in the hot set
	ResidentBytes int64 // hot-set bytes resident in the page cache
	PinnedBytes   int64 // bytes mlocked by the cache
	// ManagedResidentBytes are all managed files' resident bytes, including what applications
	// cached themselves beyond the hot set.
	ManagedResidentBytes int64
	ManagedFiles         int
	// MissBytes: pages of managed files that became resident between two samples without the
	// cache loading them, i.e. reads (or writes of new pages) that went to storage. A lower
	// bound: a page read and evicted within one interval is not seen.
	MissBytes int64
	// HitBytes are page accesses served from the cache; only known with an AccessSource
	// (HitsObserved), since mincore cannot see a read of a resident page.
	HitBytes           int64
	HitsObserved       bool
	PrefetchedBytes    int64 // non-resident bytes asked for with POSIX_FADV_WILLNEED
	DroppedBehindBytes int64 // resident bytes dropped behind sequential scanners
	ReleasedBytes      int64 // resident bytes dropped or unlocked to give memory back
	BackoffEvents      int64 // times a backoff started (floor crossed or PSI above threshold)
	InBackoff          bool
	// ResidencyMeasured: ResidentBytes, ManagedResidentBytes and MissBytes are measured (mincore
	// on Linux). Windows has no residency query without a driver: they are not measured there,
	// and the collector sends none of them rather than a 0.
	ResidencyMeasured bool
	// The control group (docs/gains.md), cumulative bytes. HoldoutMeasured: a GroupSource
	// counted the groups in the last sample, with HoldoutPercent of the managed pages held out.
	HoldoutMeasured                          bool
	HoldoutPercent                           int64
	ManagedAccessedBytes, ManagedMissedBytes int64
	ControlAccessedBytes, ControlMissedBytes int64
	OwnReadBytes, OwnPageHitBytes            int64
	// Buckets are the same counters per hash bucket of page groups, cumulative (in bytes here), counted
	// while a control is drawn; BucketsMeasured: they were counted in the last sample.
	Buckets         [HoldoutBuckets]BucketCounts
	BucketsMeasured bool
	PinErrors       int64  // pins that failed (mlock limit, file gone)
	LastError       string // the last problem a person can act on, "" when none
	Samples         int64
}
