package readcache

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/memlimit"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// These run as a Windows binary under Wine in CI (windows-check.sh), and on Windows as they are.

func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "readcache") // not t.TempDir: Wine 8 refuses its cleanup
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func writeFile(t *testing.T, path string, size int) {
	t.Helper()
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
}

// memory is a MemorySource with the snapshot a test sets.
type memory struct{ snapshot memlimit.Snapshot }

func (m *memory) Read() (memlimit.Snapshot, error) { return m.snapshot, nil }

func enabledPolicy(dir string) policy.ReadCache {
	rc := policy.Default().ReadCache
	rc.Enabled, rc.Prefetch = true, true
	rc.Include = []string{filepath.ToSlash(dir) + "/**"}
	rc.Pin = []string{filepath.ToSlash(filepath.Join(dir, "index.dat"))}
	return rc
}

// The real system memory reader: GlobalMemoryStatusEx gives the available bytes, there is no PSI.
func TestSystemMemoryReadsAvailableBytes(t *testing.T) {
	source, err := defaultMemory("")
	if err != nil {
		t.Fatal(err)
	}
	s, err := source.Read()
	if err != nil {
		t.Fatal(err)
	}
	if s.AvailableBytes() <= 0 || s.PressureKnown() {
		t.Fatalf("snapshot %+v: want available bytes and no PSI", s)
	}
}

// The pinned file is mapped and VirtualLocked (its bytes counted pinned), the other hot file is
// read through the cache once (prefetched), and residency is reported as not measured. A
// second sample does not read the file again (nothing changed, refresh not due).
func TestPinAndPrefetchWithinTheBudget(t *testing.T) {
	dir := tempDir(t)
	writeFile(t, filepath.Join(dir, "index.dat"), 3<<20)
	writeFile(t, filepath.Join(dir, "table.dat"), 5<<20)
	mem := &memory{memlimit.Snapshot{MemAvailableBytes: 8 << 30, PressureSomeAvg10: math.NaN()}}
	f, err := New(Config{}, Deps{Memory: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Apply(context.Background(), enabledPolicy(dir)); err != nil {
		t.Fatal(err)
	}
	f.Sample(context.Background())
	st := f.Stats()
	if st.PinnedBytes != 3<<20 || st.PrefetchedBytes != 5<<20 || st.ManagedFiles != 2 || st.HotSetBytes != 8<<20 {
		t.Fatalf("stats %+v: want 3 MiB pinned, 5 MiB prefetched, 2 files, an 8 MiB hot set", st)
	}
	if st.ResidencyMeasured || st.ResidentBytes != 0 || st.MissBytes != 0 || st.LastError != "" {
		t.Fatalf("stats %+v: residency must be reported as not measured", st)
	}
	f.Sample(context.Background())
	if again := f.Stats().PrefetchedBytes; again != 5<<20 {
		t.Fatalf("prefetched %d after a second sample, want the file read once", again)
	}
}

// Windows' low-memory notification is a backoff: the pins are released at once (their pages
// become available again) and nothing is pinned or prefetched while it lasts.
func TestLowMemoryReleasesThePins(t *testing.T) {
	dir := tempDir(t)
	writeFile(t, filepath.Join(dir, "index.dat"), 2<<20)
	mem := &memory{memlimit.Snapshot{MemAvailableBytes: 8 << 30, PressureSomeAvg10: math.NaN()}}
	f, err := New(Config{}, Deps{Memory: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Apply(context.Background(), enabledPolicy(dir)); err != nil {
		t.Fatal(err)
	}
	f.Sample(context.Background())
	if got := f.Stats().PinnedBytes; got != 2<<20 {
		t.Fatalf("pinned %d, want 2 MiB", got)
	}
	mem.snapshot.LowMemory = true
	f.Sample(context.Background())
	st := f.Stats()
	if st.PinnedBytes != 0 || st.BackoffEvents != 1 || !st.InBackoff || st.ReleasedBytes != 2<<20 {
		t.Fatalf("stats %+v: want the pin released in one backoff", st)
	}
}
