package writeopt

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

const (
	compareFileBytes   = 16 << 20
	compareAppendBytes = 8 << 10
)

// The comparison group on a real (aged) ext4: one file a preallocation rule manages and one no
// rule matches grow side by side in the watched directory in small fsync'd appends; the managed
// one must add fewer extents, and both groups must count exactly the bytes written.
func TestComparisonGroupMeasuresManagedAndUnmanagedGrowth(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := ext4.mount(t, 1<<30)
	f, err := New(Config{GrowthInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Preallocation = []policy.PreallocationRule{{Pattern: filepath.ToSlash(dir) + "/*.log", ChunkBytes: policy.DefaultChunkBytes}}
	if err := f.Apply(ctx, wo); err != nil {
		t.Fatal(err)
	}
	if st := f.Stats(); !st.GrowthWatched || st.ManagedGrownBytes != 0 || st.UnmanagedGrownBytes != 0 {
		t.Fatalf("before any growth: %+v", st)
	}
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	managed, unmanaged := filepath.Join(dir, "managed.log"), filepath.Join(dir, "unmanaged.dat")
	// What this test measures is the comparison, not the race to a new file's first write (the
	// open gate's tests run that, with a writer in another process; this process's own opens are
	// never held). So the files exist and the managed one has its first window before the appends
	// start: on a loaded machine the appends could otherwise all land before the window does.
	for _, path := range []string{managed, unmanaged} {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(2 * time.Minute); f.Stats().PreallocatedBytes == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the managed file's first window was never reserved: %+v", f.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := appendSyncedInTurn([]string{managed, unmanaged}, compareFileBytes, compareAppendBytes); err != nil {
		t.Fatal(err)
	}

	// Wait for the last events to be read and measured (Run measures every 50 ms).
	var st Stats
	for deadline := time.Now().Add(2 * time.Minute); ; {
		st = f.Stats()
		if st.ManagedGrownBytes >= compareFileBytes && st.UnmanagedGrownBytes >= compareFileBytes {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("growth never fully measured: %+v", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	managedNow, _ := CountExtents(managed)
	unmanagedNow, _ := CountExtents(unmanaged)
	t.Logf("2 files × 16 MiB in 8 KiB fsync'd appends: managed grew %d B, +%d extents; unmanaged grew %d B, +%d extents "+
		"(FIEMAP incl. space past EOF now: managed %d, unmanaged %d); preallocated %d B",
		st.ManagedGrownBytes, st.ManagedExtentsAdded, st.UnmanagedGrownBytes, st.UnmanagedExtentsAdded,
		managedNow, unmanagedNow, st.PreallocatedBytes)
	if st.ManagedGrownBytes != compareFileBytes || st.UnmanagedGrownBytes != compareFileBytes {
		t.Errorf("bytes grown %d managed, %d unmanaged; the test wrote %d to each",
			st.ManagedGrownBytes, st.UnmanagedGrownBytes, compareFileBytes)
	}
	if st.ManagedExtentsAdded < 1 || st.ManagedExtentsAdded >= st.UnmanagedExtentsAdded {
		t.Errorf("managed file added %d extents, unmanaged %d: want at least 1 and fewer than unmanaged",
			st.ManagedExtentsAdded, st.UnmanagedExtentsAdded)
	}

	// Truncated and deleted files add nothing: the counters stay where they are.
	if err := os.Truncate(unmanaged, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(managed); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // let Run read the events (a later growth would be counted)
	f.MeasureGrowth()
	if after := f.Stats(); after.ManagedGrownBytes != st.ManagedGrownBytes || after.UnmanagedGrownBytes != st.UnmanagedGrownBytes ||
		after.ManagedExtentsAdded != st.ManagedExtentsAdded || after.UnmanagedExtentsAdded != st.UnmanagedExtentsAdded {
		t.Errorf("truncate/delete moved the counters: %+v → %+v", st, after)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// appendSyncedInTurn grows every file to total bytes by step-byte appends, each followed by an
// fsync, taking the files in turn: their allocations interleave on the disk on every run, as
// concurrent writers' do on a busy machine (two goroutines on an idle one may run one after the
// other, and then even the unmanaged file grows in a few long extents).
func appendSyncedInTurn(paths []string, total, step int) error {
	files := make([]*os.File, len(paths))
	for i, path := range paths {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		files[i] = f
	}
	block := make([]byte, step)
	for offset := 0; offset < total; offset += step {
		for i, f := range files {
			fillBlock(block, len(paths[i]), offset)
			if _, err := f.Write(block); err != nil {
				return err
			}
			if err := f.Sync(); err != nil {
				return err
			}
		}
	}
	return nil
}
