// Package writeopt is write optimisation (Linux): fewer fragments for growing files.
//
// Preallocation: the feature watches (inotify IN_CREATE/IN_MODIFY/IN_MOVED_TO) every directory
// beneath the literal prefix of each rule's pattern. When a matching file's size comes within
// half a window of what is reserved for it, it reserves the next window past the end with
// fallocate(FALLOC_FL_KEEP_SIZE): one request the file system can satisfy with one contiguous
// run, which the file's own small appends then fill. The first window is the rule's chunkBytes;
// later ones follow the file's growth rate and double while it keeps outrunning them (window.go),
// so a file's windows, and fragments, grow with the logarithm of its size. Size and content
// never change (the reserved blocks read as unwritten and lie past EOF); what a file has reserved
// past its end is capped, and given back once the file is idle and closed, when its rule goes
// and when the feature stops (trim_linux.go). On XFS a new file also gets an extent size hint of
// its first window before its first data (extsize_linux.go), so it is allocated in whole units.
//
// Defragmentation (ext4 only): every DefragInterval, while the file's disk is idle (the
// device's io_time in /proc/diskstats rose by less than IdleUtilisationPercent of a
// DiskIdleWindow) or always when the policy says idleOnly=false, each included file with more
// extents than the threshold is rewritten online the way e4defrag does it: a donor file in
// the same file system, unnamed (O_TMPFILE relative to the directory descriptor the file's path
// led to, or an exclusive random name relative to it, unlinked at once), is allocated with
// fallocate exactly where the file has data, and only when that leaves the file system at least
// FreeSpaceFloorBytes available (checked before and after allocating); if the donor has
// fewer extents, EXT4_IOC_MOVE_EXT swaps the blocks chunk by chunk (the kernel copies the data
// under the file's lock, so readers and writers keep working); if the file does not end with
// fewer extents, the blocks are swapped back. Content is never changed. On other file systems
// (statfs magic) defragmentation is ErrUnsupported.
//
// Extents are counted with FIEMAP and merged as filefrag merges them: a run of extents that is
// contiguous both logically and physically is one fragment.
//
// Comparison group: every file growing in the watched directories is measured now and then
// (size, and fragments up to EOF), and its bytes grown and extents added are summed for the
// files a rule manages and for those none matches, so the console can set the managed files'
// fragments per byte against what files left alone got in the same directories.
package writeopt

import (
	"errors"
	"log/slog"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel"
)

// ErrUnsupported is returned for an OS, kernel or file system that cannot do what is asked.
var ErrUnsupported = accel.ErrUnsupported

// ErrBelowFloor: defragmenting the file would take the file system's available space below
// the floor (Config.FreeSpaceFloorBytes), so it is left as it is.
var ErrBelowFloor = errors.New("not enough free space above the floor")

// Config tunes the feature; the policy says which files, Config how often.
type Config struct {
	// DefragInterval is how often included files are checked for fragmentation; default 10 min.
	DefragInterval time.Duration
	// IdleUtilisationPercent: a disk busier than this (io_time per wall time) is not idle; default 10.
	IdleUtilisationPercent float64
	DiskIdleWindow         time.Duration // how long disk activity is measured; default 1 s
	// MoveChunkBytes is how much one EXT4_IOC_MOVE_EXT call moves; default 64 MiB.
	MoveChunkBytes int64
	// FreeSpaceFloorBytes: defragmentation leaves a file as it is when its donor would take the
	// file system's available space (f_bavail) below this; 0 means the larger of 1 GiB and 5 %
	// of the file system. Set from agent.yaml only (write_optimization.free_space_floor_bytes).
	FreeSpaceFloorBytes int64
	MaxFiles            int // files tracked for preallocation and defragmentation; default 100000
	// PreallocationHorizon: each window after the first is sized to last this long at the rate
	// the file grew over its previous window (at most twice that window); default 1 min.
	PreallocationHorizon time.Duration
	// PreallocationCapBytes caps the space reserved past one file's end (a rule's chunkBytes
	// above it wins); default 1 GiB.
	PreallocationCapBytes int64
	// TrimIdleAfter: a file unchanged this long, and open for writing nowhere, gets the space
	// reserved past its end back to the file system; default 1 min.
	TrimIdleAfter time.Duration
	// GrowthInterval is how often growing files are measured for the comparison group
	// (bytes grown, extents added); default 10 s.
	GrowthInterval time.Duration
	// ComparisonFiles bounds the growing files tracked (the most recently grown kept; default
	// 1000); ComparisonChecks bounds the files counted with FIEMAP per pass (default 200).
	ComparisonFiles  int
	ComparisonChecks int
	// FirstWrite says how a new file is caught before its first write: FirstWriteAuto (the
	// default) holds the opens in the watched directories with fanotify where the kernel allows
	// it; FirstWriteInotify learns of new files from inotify alone, after their first write.
	FirstWrite FirstWriteMode
	// ExtentSizeHint: on XFS, give each new file a rule matches an extent size hint of its
	// first window before its first data (extsize_linux.go). Off by default: on appended logs
	// it was measured to change nothing while the agent keeps up and to double the fragments
	// of a file the agent falls behind on (docs/benchmarks.md).
	ExtentSizeHint bool
	ProcPath       string // default "/proc"
	SysPath        string // default "/sys"
	Logger         *slog.Logger
}

// FirstWriteMode is Config.FirstWrite.
type FirstWriteMode string

const (
	FirstWriteAuto    FirstWriteMode = "auto"
	FirstWriteInotify FirstWriteMode = "inotify"
)

// ErrFirstWriteInotify: the agent's configuration asks for inotify alone, so no open is held.
var ErrFirstWriteInotify = errors.New("the agent's configuration says write_optimization.first_write: inotify: new " +
	"files get their first window after their first write (set it to auto to reserve it before)")

// maxWindowShareOfFreeSpace: one window takes at most this share of the space still available,
// so the files growing at once cannot reserve the disk full between them.
const maxWindowShareOfFreeSpace = 1.0 / 8

func (c Config) withDefaults() Config {
	if c.DefragInterval <= 0 {
		c.DefragInterval = 10 * time.Minute
	}
	if c.IdleUtilisationPercent <= 0 {
		c.IdleUtilisationPercent = 10
	}
	if c.DiskIdleWindow <= 0 {
		c.DiskIdleWindow = time.Second
	}
	if c.MoveChunkBytes <= 0 {
		c.MoveChunkBytes = 64 << 20
	}
	if c.PreallocationHorizon <= 0 {
		c.PreallocationHorizon = time.Minute
	}
	if c.PreallocationCapBytes <= 0 {
		c.PreallocationCapBytes = 1 << 30
	}
	if c.TrimIdleAfter <= 0 {
		c.TrimIdleAfter = time.Minute
	}
	if c.GrowthInterval <= 0 {
		c.GrowthInterval = 10 * time.Second
	}
	if c.ComparisonFiles <= 0 {
		c.ComparisonFiles = defaultComparisonFiles
	}
	if c.ComparisonChecks <= 0 {
		c.ComparisonChecks = defaultComparisonChecks
	}
	if c.MaxFiles <= 0 {
		c.MaxFiles = 100_000
	}
	if c.FirstWrite == "" {
		c.FirstWrite = FirstWriteAuto
	}
	if c.ProcPath == "" {
		c.ProcPath = "/proc"
	}
	if c.SysPath == "" {
		c.SysPath = "/sys"
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Stats are cumulative since New, plus the extents of the managed files at the last count.
type Stats struct {
	// PreallocatedBytes are blocks newly reserved by fallocate (st_blocks after minus before).
	PreallocatedBytes int64
	// TrimmedBytes are reserved blocks given back unused when their file went idle or the
	// feature stopped (st_blocks before minus after the trim).
	TrimmedBytes int64
	// FragmentsPrevented counts allocation events avoided: growths of a managed file, as inotify
	// reported them, that ended inside space reserved earlier, so the file system had nothing
	// to allocate for them. Each could have started a new extent without preallocation, so it
	// is an upper bound on the fragments prevented; the tests measure the real effect against
	// files grown without the feature.
	FragmentsPrevented int64
	// FirstWritesReserved counts new files whose first window was reserved when they were
	// opened, before their first write (the open gate); FirstWriteGated says the gate holds
	// the opens in the watched directories now, FirstWriteReason why not (inotify alone) while
	// preallocation runs without it.
	FirstWritesReserved int64
	FirstWriteGated     bool
	FirstWriteReason    string
	// ExtentSizeHintsSet counts new files on XFS given an extent size hint (the rule's first
	// window) before their first data: they allocate in whole units of it (extsize_linux.go).
	ExtentSizeHintsSet int64
	FilesDefragmented  int64
	// DefragNotImproved counts files left as they were because the donor (or the result) was
	// not less fragmented.
	DefragNotImproved int64
	DefragSkippedBusy int64 // passes skipped because the disk was not idle
	// DefragSkippedSpace counts files left as they were because their donor would have taken
	// the file system below the free-space floor.
	DefragSkippedSpace int64
	// The comparison group (cumulative): bytes grown and extents added (FIEMAP up to EOF, so
	// space reserved past EOF is not fragmentation) by growing files in the watched directories,
	// those a preallocation rule matches (managed) and those none matches (unmanaged).
	ManagedGrownBytes, ManagedExtentsAdded     int64
	UnmanagedGrownBytes, UnmanagedExtentsAdded int64
	// GrowthWatched: directories are watched, so the four counters above are measured (a 0
	// then means nothing grew); false means they are not measured at all.
	GrowthWatched bool
	// Extents maps each managed file to its fragments at the last count (preallocation events
	// and defragmentation passes update it).
	Extents   map[string]int
	LastError string
}
