package blockio

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

func TestCompletedReadsRequestBasedDisks(t *testing.T) {
	dir := t.TempDir()
	disk := func(name, dev, stat string, mq bool) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if mq {
			if err := os.Mkdir(filepath.Join(dir, name, "mq"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for file, content := range map[string]string{"dev": dev, "stat": stat} {
			if err := os.WriteFile(filepath.Join(dir, name, file), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Fields: reads, merged, sectors, ms, writes, merged, sectors, ms, in flight, io ms, weighted
	// ms, discards, merged, sectors, ms, flushes, ms.
	disk("vda", "254:0\n", "  100 0 800 5  200 0 1600 9  1 10 14  7 0 56 1  30 2\n", true)
	disk("sdb", "8:16\n", "5 0 40 1 6 0 48 1 0 2 2\n", true)            // before 4.18: no discard fields
	disk("dm-0", "253:0\n", "9 0 72 1 9 0 72 1 0 2 2 0 0 0 0\n", false) // bio-based: no requests
	disk("loop3", "7:3\n", "garbage\n", true)
	got := Completed(dir)
	want := map[DiskOp]uint64{
		{bpf.MakeDev(254, 0), bpf.OpRead}: 100, {bpf.MakeDev(254, 0), bpf.OpWrite}: 200, {bpf.MakeDev(254, 0), bpf.OpDiscard}: 7,
		{bpf.MakeDev(8, 16), bpf.OpRead}: 5, {bpf.MakeDev(8, 16), bpf.OpWrite}: 6,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Completed = %v, want %v", got, want)
	}
	if got := Completed(filepath.Join(dir, "missing")); len(got) != 0 {
		t.Errorf("no /sys/block: %v", got)
	}
}

// TestUntimedReportsEachMissingIOOnce walks Untimed through what the readings look like: the
// disk's count runs ahead of the histograms by the I/Os nobody timed; a timed I/O between the two
// readings makes the histograms run ahead for one reading, which must neither count nor hide
// an untimed one later; a disk whose counters start again is measured from there.
func TestUntimedReportsEachMissingIOOnce(t *testing.T) {
	read := DiskOp{bpf.MakeDev(7, 0), bpf.OpRead}
	var u Untimed
	// base: the reading only sets the base, so nothing is measured (no key, rather than 0).
	step := func(completed, timed, want uint64, base ...bool) {
		t.Helper()
		got := u.Add(map[DiskOp]uint64{read: completed}, map[DiskOp]uint64{read: timed})
		n, measured := got[read]
		if n != want || measured == (len(base) > 0) || len(got) > 1 {
			t.Errorf("completed %d, timed %d: untimed %v, want %d (measured: %t)", completed, timed, got, want, len(base) == 0)
		}
	}
	step(1000, 40, 0, true) // the first reading is the base, whatever came before
	step(1100, 140, 0)      // measured: none untimed
	step(1200, 231, 9)      // 9 of the 100 never reached the programs
	step(1300, 332, 0)      // a timed I/O reached the histograms between the two readings
	step(1400, 430, 1)      // ... so the dip is made up, and only that
	step(1500, 528, 2)      // 2 more missing
	step(1500, 528, 0)      // nothing new
	step(20, 600, 0, true)  // the disk was replaced: a new base
	step(120, 695, 5)       // measured from the new base
	got := u.Add(map[DiskOp]uint64{}, nil)
	if len(got) != 0 || len(u.disks) != 0 {
		t.Errorf("a disk that went away: untimed %v, still tracked %v", got, u.disks)
	}
	step(0, 0, 0, true)
	step(10, 0, 10) // an I/O the histograms never heard of, on a disk new to both
}
