package blockio

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// DiskOp is one disk (MKDEV of the whole disk) and operation.
type DiskOp struct {
	Dev bpf.Dev
	Op  bpf.Op
}

// Completed reads each request-based disk's own cumulative count of completed reads, writes and
// discards (<sysBlock>/<disk>/stat, which the kernel updates right after block_rq_complete). Only
// request-based disks count: bio-based ones (device-mapper, md, zram) never reach
// block_rq_complete. Flushes are left out: the kernel counts a flush the block layer answers
// without issuing it, which has no latency to time. A disk whose files cannot be read is left
// out.
func Completed(sysBlock string) map[DiskOp]uint64 {
	out := map[DiskOp]uint64{}
	disks, err := os.ReadDir(sysBlock)
	if err != nil {
		return out
	}
	for _, d := range disks {
		dir := filepath.Join(sysBlock, d.Name())
		if _, err := os.Stat(filepath.Join(dir, "mq")); err != nil {
			continue
		}
		dev, ok := readDev(filepath.Join(dir, "dev"))
		if !ok {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		// Documentation/block/stat.rst: reads completed is field 0, writes 4, discards 11
		// (kernels since 4.18).
		fields := strings.Fields(string(raw))
		for op, i := range map[bpf.Op]int{bpf.OpRead: 0, bpf.OpWrite: 4, bpf.OpDiscard: 11} {
			if i >= len(fields) {
				continue
			}
			if n, err := strconv.ParseUint(fields[i], 10, 64); err == nil {
				out[DiskOp{dev, op}] = n
			}
		}
	}
	return out
}

func readDev(path string) (bpf.Dev, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	major, minor, ok := strings.Cut(strings.TrimSpace(string(raw)), ":")
	ma, err1 := strconv.ParseUint(major, 10, 32)
	mi, err2 := strconv.ParseUint(minor, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, false
	}
	return bpf.MakeDev(uint32(ma), uint32(mi)), true
}

// Untimed finds the I/Os a disk completed that are not in its latency histograms: completions
// no program saw (the kernel does not run tracing programs in every context: on a busy host
// some block completions reach block_rq_complete's ftrace event and never its BPF programs,
// with no recursion miss counted), and ones seen without an issue time (unstamped). The disk's
// own counters are the only account of those I/Os, so each reading compares them with the
// histograms' counts, both cumulative from the disk's first reading.
//
// A timed I/O enters the histograms at block_rq_complete, a moment before the disk's counter, and
// the counters are read before the histograms: a reading can only show fewer untimed I/Os than
// there are (completions in between), never more, so Untimed reports the largest difference seen
// and a dip is made up by the next reading. Not safe for concurrent use.
type Untimed struct {
	disks map[DiskOp]*untimedDisk
}

type untimedDisk struct {
	completedBase, timedBase uint64 // the first reading, or the one after a reset
	completed, timed         uint64 // the last reading
	reported                 uint64 // untimed I/Os reported since the base
}

// Add takes one reading, completed (Completed) read before timed (the histograms' counts), and
// returns the untimed I/Os of each disk and operation since the last reading, zeros included:
// a key is in the result exactly when its count was measured. A disk's first reading, or one
// whose counters went back (a disk replaced under the same number, the programs loaded again),
// only sets its base and is left out (not measured).
func (u *Untimed) Add(completed, timed map[DiskOp]uint64) map[DiskOp]uint64 {
	if u.disks == nil {
		u.disks = map[DiskOp]*untimedDisk{}
	}
	out := map[DiskOp]uint64{}
	for key, c := range completed {
		t := timed[key]
		d, ok := u.disks[key]
		if !ok || c < d.completed || t < d.timed {
			u.disks[key] = &untimedDisk{completedBase: c, timedBase: t, completed: c, timed: t}
			continue
		}
		d.completed, d.timed = c, t
		gap := int64(c-d.completedBase) - int64(t-d.timedBase)
		out[key] = 0
		if gap > int64(d.reported) {
			out[key] = uint64(gap) - d.reported
			d.reported = uint64(gap)
		}
	}
	for key := range u.disks {
		if _, ok := completed[key]; !ok {
			delete(u.disks, key) // the disk is gone
		}
	}
	return out
}
