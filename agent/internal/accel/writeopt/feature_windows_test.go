package writeopt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// These run as a Windows binary under Wine in CI (windows-check.sh), and on Windows as they are.

func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// tempDir is t.TempDir without its cleanup, which Wine 8 refuses (best-effort removal instead).
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "writeopt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func allocation(t *testing.T, path string) fileStandardInfo {
	t.Helper()
	hold, err := openHold(path)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	info, err := standardInfo(windows.Handle(hold.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// A log growing in a watched directory: ReadDirectoryChangesW reports it, the feature reserves
// a window past its end with FileAllocationInfo, and its size stays. Wine 8 does not implement
// FileAllocationInfo: there the growth must be seen, the attempt reported as ErrUnsupported in
// LastError with nothing counted, and the file unchanged.
func TestPreallocationReservesPastTheEndWithoutChangingTheFile(t *testing.T) {
	dir := tempDir(t)
	f, err := New(Config{GrowthInterval: time.Hour, TrimIdleAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const chunk = 4 << 20
	err = f.Apply(context.Background(), policy.WriteOptimization{Enabled: true,
		Preallocation: []policy.PreallocationRule{{Pattern: filepath.ToSlash(dir) + "/*.log", ChunkBytes: chunk}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	defer func() { cancel(); <-done }()

	path := filepath.Join(dir, "app.log")
	log, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	line := make([]byte, 8192)
	for i := range line {
		line[i] = byte('a' + i%26)
	}
	deadline := time.Now().Add(60 * time.Second)
	written := int64(0)
	for f.Stats().PreallocatedBytes == 0 && !(underWine() && f.Stats().LastError != "") {
		if time.Now().After(deadline) {
			t.Fatalf("no preallocation after %d bytes appended; stats %+v", written, f.Stats())
		}
		if _, err := log.Write(line); err != nil {
			t.Fatal(err)
		}
		written += int64(len(line))
		time.Sleep(50 * time.Millisecond)
	}
	info := allocation(t, path)
	st, _ := os.Stat(path)
	if underWine() {
		stats := f.Stats()
		if !strings.Contains(stats.LastError, "refuses FileAllocationInfo") || stats.PreallocatedBytes != 0 {
			t.Fatalf("under Wine: stats %+v; want the refusal reported and nothing counted", stats)
		}
		if st.Size() != written {
			t.Fatalf("under Wine: size %d, want %d", st.Size(), written)
		}
		prealloc, _ := Probe(dir)
		if !errors.Is(prealloc, ErrUnsupported) {
			t.Fatalf("under Wine: Probe = %v, want ErrUnsupported", prealloc)
		}
		t.Logf("under Wine: %s", stats.LastError)
		return
	}
	if st.Size() != written || info.EndOfFile != written {
		t.Fatalf("size %d (end of file %d), want %d: preallocation must not change the size", st.Size(), info.EndOfFile, written)
	}
	if info.AllocationSize < written+chunk/2 {
		t.Fatalf("allocation %d for %d bytes: want a window of %d reserved past the end", info.AllocationSize, written, chunk)
	}
	if got := f.Stats().PreallocatedBytes; got < chunk/2 {
		t.Fatalf("PreallocatedBytes %d, want about the %d-byte window", got, chunk)
	}
	if !f.Stats().GrowthWatched {
		t.Fatal("GrowthWatched false while a directory is watched")
	}
}

// Trimming lets go of the agent's handle: the file is unchanged, and once no handle is left NTFS
// returns the reservation. Under Wine the reservation itself is refused (ErrUnsupported).
func TestTrimLetsGoOfTheReservation(t *testing.T) {
	dir := tempDir(t)
	path := filepath.Join(dir, "idle.log")
	if err := os.WriteFile(path, make([]byte, 100_000), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &growth{lastSize: -1}
	limits := windowLimits{firstBytes: 2 << 20, minBytes: 1 << 20, capBytes: 1 << 30, horizon: time.Minute, freeShare: 0.125}
	reserved, err := preallocate(path, g, limits, time.Now())
	if underWine() {
		if !errors.Is(err, ErrUnsupported) || !g.unsupported {
			t.Fatalf("under Wine: %v, want ErrUnsupported (no FileAllocationInfo)", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if reserved <= 0 || g.hold == nil {
		t.Fatalf("reserved %d, hold %v: want a window reserved and held", reserved, g.hold)
	}
	size, freed, err := trimReservation(path, g)
	if err != nil {
		t.Fatal(err)
	}
	if size != 100_000 || g.hold != nil {
		t.Fatalf("size %d, hold %v after the trim; want 100000 and no handle held", size, g.hold)
	}
	if freed < reserved/2 {
		t.Fatalf("NTFS freed %d of %d bytes reserved at the last close", freed, reserved)
	}
}

// Defragmentation needs the volume's bitmap and FSCTL_MOVE_FILE. Under Wine the volume refuses
// them: Apply must refuse the policy with an error wrapping ErrUnsupported that names the
// request, which the agent reports as the capability's reason, never a crash.
func TestDefragmentationWhereTheVolumeRefusesIt(t *testing.T) {
	dir := tempDir(t)
	f, _ := New(Config{})
	defer f.Close()
	err := f.Apply(context.Background(), policy.WriteOptimization{Enabled: true,
		Defragmentation: policy.Defragmentation{Enabled: true, Include: []string{filepath.ToSlash(dir) + "/*.mdf"},
			ExtentThreshold: 8, IdleOnly: true}})
	if !underWine() {
		if err != nil && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("on Windows: %v, want nil or ErrUnsupported", err)
		}
		return
	}
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("under Wine: %v, want ErrUnsupported", err)
	}
	t.Logf("under Wine: %v", err)
	if want := "switch defragmentation off"; !strings.Contains(err.Error(), want) {
		t.Fatalf("%q does not say %q", err, want)
	}
}
