package writeopt

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// openerEnv makes the test binary an application of its own (TestMain): the gate never holds the
// agent's own opens, so whatever it should hold has to come from another process. The JSON
// openerSpec in it says what to open; the process prints an openerResult as JSON.
const openerEnv = "SPINDLE_WRITEOPT_OPENER"

type openerSpec struct {
	// Appends: each path is opened O_WRONLY|O_CREAT|O_APPEND, written 8 KiB, fsynced, closed.
	Appends []string
	// Reopen and Create time open(2) for the open-latency measurement: Reopen opens existing
	// files read-only (Rounds times each), Create creates each path and closes it.
	Reopen []string
	Create []string
	Rounds int
}

type openerResult struct {
	ReopenNanos, CreateNanos []int64
}

func runOpener(spec string) int {
	var s openerSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	block := make([]byte, 8<<10)
	for _, path := range s.Appends {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err == nil {
			_, err = f.Write(block)
		}
		if err == nil {
			err = f.Sync()
		}
		if err == nil {
			err = f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	var r openerResult
	timed := func(path string, flags int) (int64, error) {
		start := time.Now()
		fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0o644)
		elapsed := time.Since(start).Nanoseconds()
		if err != nil {
			return 0, fmt.Errorf("open %s: %w", path, err)
		}
		return elapsed, unix.Close(fd)
	}
	for range s.Rounds {
		for _, path := range s.Reopen {
			n, err := timed(path, unix.O_RDONLY)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			r.ReopenNanos = append(r.ReopenNanos, n)
		}
	}
	for _, path := range s.Create {
		n, err := timed(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		r.CreateNanos = append(r.CreateNanos, n)
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		return 1
	}
	return 0
}

// openAsApplication runs spec in a process of its own and returns what it measured.
func openAsApplication(t *testing.T, spec openerSpec) openerResult {
	t.Helper()
	encoded, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), openerEnv+"="+string(encoded))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the application's process: %v", err)
	}
	var r openerResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the application's process printed %q: %v", out, err)
	}
	return r
}

// gatedFeature applies a rule for dir/*.log (4 MiB first window) with the first-write mode
// asked for, without running the feature's loop: inotify's events are never handled, so any
// reservation a file has came from the open gate.
func gatedFeature(t *testing.T, dir string, mode FirstWriteMode) *Feature {
	t.Helper()
	return gatedFeatureWith(t, dir, Config{FirstWrite: mode})
}

// gatedFeatureWith is gatedFeature with the configuration given.
func gatedFeatureWith(t *testing.T, dir string, cfg Config) *Feature {
	t.Helper()
	fiemaptest.NeedRoot(t, "fanotify permission events")
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Preallocation = []policy.PreallocationRule{{Pattern: filepath.ToSlash(dir) + "/*.log", ChunkBytes: 4 << 20}}
	if err := f.Apply(context.Background(), wo); err != nil {
		t.Fatal(err)
	}
	return f
}

// An application creates a log and appends 8 KiB with fsync: with the gate the file's first
// window is reserved while its open waits, so that first append lies at the start of the window
// (one run of blocks, the window past its end). A file no rule matches, and a log that already
// has data, are let through untouched (inotify follows an existing log's growth). With
// first_write: inotify nothing is held and the capability's reason says so. After Close the
// gate holds nothing.
func TestOpenGateReservesANewFileBeforeItsFirstWrite(t *testing.T) {
	fiemaptest.NeedTool(t, "filefrag")
	dir := fiemaptest.MountExt4(t, 256<<20)
	old := filepath.Join(dir, "old.log")
	if err := os.WriteFile(old, make([]byte, 8<<10), 0o644); err != nil {
		t.Fatal(err)
	}

	f := gatedFeatureWith(t, dir, Config{FirstWrite: FirstWriteAuto, ExtentSizeHint: true}) // no hint on ext4 all the same
	if st := f.Stats(); !st.FirstWriteGated || st.FirstWriteReason != "" {
		t.Fatalf("the gate should hold the opens here: %+v", st)
	}
	fresh, other := filepath.Join(dir, "new.log"), filepath.Join(dir, "notes.txt")
	openAsApplication(t, openerSpec{Appends: []string{fresh, other, old}})
	if got := f.Stats().FirstWritesReserved; got != 1 {
		t.Errorf("first windows reserved before the first write: %d, want 1 (new.log)", got)
	}
	if got := reservedPastEnd(t, fresh); got < 4<<20-8<<10 {
		t.Errorf("new.log: %d bytes reserved past its end, want the rest of its 4 MiB window", got)
	}
	if starts := runStarts(t, fresh); !slices.Equal(starts, []int64{0}) {
		t.Errorf("new.log: runs of blocks start at %v, want one run from 0 (the first append inside the window)", starts)
	}
	if got, st := extentSizeHint(t, fresh), f.Stats(); got != 0 || st.ExtentSizeHintsSet != 0 || st.LastError != "" {
		t.Errorf("ext4: new.log has an extent size hint of %d bytes (%d set, last error %q); hints are XFS's",
			got, st.ExtentSizeHintsSet, st.LastError)
	}
	for _, path := range []string{other, old} {
		if got := reservedPastEnd(t, path); got != 0 {
			t.Errorf("%s: %d bytes reserved past its end; the gate should have let it through untouched", filepath.Base(path), got)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	afterClose := filepath.Join(dir, "after-close.log")
	openAsApplication(t, openerSpec{Appends: []string{afterClose}})
	if got := reservedPastEnd(t, afterClose); got != 0 {
		t.Errorf("after Close the gate still reserved %d bytes for a new log", got)
	}

	inotifyOnly := gatedFeature(t, dir, FirstWriteInotify)
	st := inotifyOnly.Stats()
	if st.FirstWriteGated || !strings.Contains(st.FirstWriteReason, "first_write: inotify") {
		t.Fatalf("with first_write: inotify nothing should be held, and the reason say so: %+v", st)
	}
	late := filepath.Join(dir, "late.log")
	openAsApplication(t, openerSpec{Appends: []string{late}})
	if got := reservedPastEnd(t, late); got != 0 || inotifyOnly.Stats().FirstWritesReserved != 0 {
		t.Errorf("first_write: inotify: %d bytes reserved at open (stats %+v)", got, inotifyOnly.Stats())
	}
}

// ProbeFirstWrite is what the capability accel.write_optimization.first_write reports.
func TestProbeFirstWriteOnThisHost(t *testing.T) {
	fiemaptest.NeedRoot(t, "fanotify permission events")
	if err := ProbeFirstWrite(t.TempDir()); err != nil {
		t.Fatalf("root on a kernel with fanotify permission events: %v", err)
	}
	if err := ProbeFirstWrite(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a directory that does not exist should not be reported as gated")
	}
}

// What the gate costs an application's open(2), in the directory it watches: existing files
// (answered at once by the reader thread) and new logs (held for the first window's fallocate),
// against the same opens with first_write: inotify. Run with SPINDLE_WRITEOPT_OPEN_LATENCY=1;
// docs/benchmarks.md records the percentiles.
func TestOpenLatencyWithAndWithoutTheGate(t *testing.T) {
	if os.Getenv("SPINDLE_WRITEOPT_OPEN_LATENCY") == "" {
		t.Skip("set SPINDLE_WRITEOPT_OPEN_LATENCY=1 to measure what the open gate costs an open(2)")
	}
	const files, rounds, creates = 100, 200, 500
	for _, mode := range []FirstWriteMode{FirstWriteInotify, FirstWriteAuto, FirstWriteInotify, FirstWriteAuto} {
		dir := fiemaptest.MountExt4(t, 4<<30)
		var existing, fresh []string
		for i := range files {
			path := filepath.Join(dir, fmt.Sprintf("data%d.log", i))
			if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			existing = append(existing, path)
		}
		for i := range creates {
			fresh = append(fresh, filepath.Join(dir, fmt.Sprintf("new%d.log", i)))
		}
		f := gatedFeature(t, dir, mode)
		r := openAsApplication(t, openerSpec{Reopen: existing, Rounds: rounds, Create: fresh})
		t.Logf("%-7s existing files (%d opens): %s; new logs (%d creates, %d first windows reserved at open): %s",
			mode, len(r.ReopenNanos), percentiles(r.ReopenNanos), len(r.CreateNanos), f.Stats().FirstWritesReserved,
			percentiles(r.CreateNanos))
		_ = f.Close()
	}
}

func percentiles(nanos []int64) string {
	sorted := slices.Clone(nanos)
	slices.Sort(sorted)
	at := func(p float64) time.Duration { return time.Duration(sorted[int(p*float64(len(sorted)-1))]) }
	return fmt.Sprintf("p50 %v p99 %v max %v", at(0.5), at(0.99), at(1))
}
