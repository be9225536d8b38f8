// Package memlimit tells how much memory this process may still use without hurting anyone:
// the machine's MemAvailable from /proc/meminfo, narrowed by the memory limit of the cgroup the
// process runs in (cgroup v2 memory.max/memory.current, or cgroup v1
// memory.limit_in_bytes/memory.usage_in_bytes and its hierarchical limit), and how much memory
// pressure there is (PSI "some avg10" of the cgroup's memory.pressure on v2, or of
// /proc/pressure/memory).
//
// It only reads files, so every path is configurable and the tests run against fixture trees.
// The read cache uses it to size its budget and to back off before applications starve.
package memlimit

import (
	"errors"
	"math"
)

// Version is the cgroup version whose memory controller limits this process.
type Version int

const (
	// NoCgroup means no memory controller was found: only MemAvailable limits the process.
	NoCgroup Version = 0
	// V1 is the legacy hierarchy's memory controller (memory.limit_in_bytes).
	V1 Version = 1
	// V2 is the unified hierarchy (memory.max).
	V2 Version = 2
)

func (v Version) String() string {
	switch v {
	case V1:
		return "cgroup v1"
	case V2:
		return "cgroup v2"
	default:
		return "no cgroup"
	}
}

// ErrNoMemAvailable means /proc/meminfo lacks MemAvailable (kernels before 3.14, or a wrong path).
var ErrNoMemAvailable = errors.New("memlimit: /proc/meminfo has no MemAvailable")

// Snapshot is one reading. Byte counts are never negative.
type Snapshot struct {
	MemAvailableBytes int64
	// Cgroup is the tightest limited cgroup on the path to the root, nil when none is limited.
	Cgroup *Cgroup
	// PressureSomeAvg10 is the share of the last 10 s (0–100 %) in which some task stalled on
	// memory; NaN when the kernel has no PSI (CONFIG_PSI off or psi=0).
	PressureSomeAvg10 float64
	// PressureSource is the file PressureSomeAvg10 came from, "" when unknown.
	PressureSource string
	// LowMemory is the operating system's own verdict that memory is low (Windows' low-memory
	// resource notification); always false on Linux, whose pressure is PressureSomeAvg10.
	LowMemory bool
}

// Cgroup is the memory accounting of one limited cgroup.
type Cgroup struct {
	Version    Version
	Dir        string // the cgroup's directory, e.g. /sys/fs/cgroup/system.slice/spindle-agent.service
	LimitBytes int64  // memory.max or the hierarchical memory.limit_in_bytes
	UsageBytes int64  // memory.current or memory.usage_in_bytes
	// FileBytes is the page cache charged to the cgroup on the LRU lists (active_file +
	// inactive_file): reclaimable, so it counts as available, as MemAvailable counts it.
	FileBytes int64
}

// AvailableBytes is what the cgroup can still give out: its limit minus what it holds that
// cannot simply be reclaimed.
func (c Cgroup) AvailableBytes() int64 {
	return max(0, c.LimitBytes-c.UsageBytes+c.FileBytes)
}

// AvailableBytes is the memory this process can still use: the smaller of MemAvailable and the
// cgroup's available bytes.
func (s Snapshot) AvailableBytes() int64 {
	if s.Cgroup == nil {
		return s.MemAvailableBytes
	}
	return min(s.MemAvailableBytes, s.Cgroup.AvailableBytes())
}

// PressureKnown reports whether PressureSomeAvg10 holds a reading.
func (s Snapshot) PressureKnown() bool { return !math.IsNaN(s.PressureSomeAvg10) }
