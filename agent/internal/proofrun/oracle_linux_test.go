package proofrun

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/testutil"
)

// residentPages counts path's pages in the page cache.
func residentPages(t *testing.T, path string) (resident, pages int) {
	t.Helper()
	each := testutil.ResidentPages(t, path)
	for _, in := range each {
		if in {
			resident++
		}
	}
	return resident, len(each)
}

// The oracle's promise: while enabled, the workload's cgroup may hold the data on top of its
// limit, and every page of every data file was read in (from outside the cgroup) even after the
// pass dropped the files from the page cache; disabled, the limit is what it was.
func TestOracleRaisesTheLimitAndReadsEveryDataFileIn(t *testing.T) {
	dir, cgroup := t.TempDir(), t.TempDir()
	limitFile := filepath.Join(cgroup, "memory.limit_in_bytes")
	if err := os.WriteFile(limitFile, []byte("268435456\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, size := range []int{3 << 20, 1 << 20, 0} {
		path := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := unix.Fsync(mustOpen(t, path)); err != nil {
			t.Fatal(err)
		}
		dropFilePages(path)
		files = append(files, path)
	}
	files = append(files, filepath.Join(dir, "dropped-since-listed"))
	o, err := NewOracle(cgroup)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if err := o.Enable(context.Background(), Targets{DataFiles: files, BudgetBytes: 4 << 20}); err != nil {
		t.Fatalf("enable: %v", err)
	}
	if got, _ := os.ReadFile(limitFile); string(got) != "272629760" {
		t.Errorf("limit while on %q, want 256 MiB + 4 MiB = 272629760", got)
	}
	for _, f := range files[:2] {
		if resident, pages := residentPages(t, f); resident != pages {
			t.Errorf("%s: %d of %d pages resident while the oracle is on, want all", f, resident, pages)
		}
	}
	if s := o.Stats(); s.ReadCachePrefetchedBytes != 4<<20 {
		t.Errorf("stats %+v, want 4 MiB read in", s)
	}
	if err := o.Disable(context.Background()); err != nil {
		t.Fatalf("disable: %v", err)
	}
	if got, _ := os.ReadFile(limitFile); string(got) != "268435456" {
		t.Errorf("limit after Disable %q, want it restored to 268435456", got)
	}
	if err := os.WriteFile(limitFile, []byte("max\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := o.Enable(context.Background(), Targets{DataFiles: files, BudgetBytes: 4 << 20}); err != nil {
		t.Fatalf("enable with no limit: %v", err)
	}
	if got, _ := os.ReadFile(limitFile); string(got) != "max\n" {
		t.Errorf("an unlimited cgroup's limit became %q; want it left alone", got)
	}
}

func TestOracleNeedsAMemoryCgroup(t *testing.T) {
	if _, err := NewOracle(t.TempDir()); err == nil {
		t.Fatal("a directory without memory.max or memory.limit_in_bytes was accepted as a memory cgroup")
	}
}

func mustOpen(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return int(f.Fd())
}
