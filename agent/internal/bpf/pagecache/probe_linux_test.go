package pagecache

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
)

// TestMissThenHit reads a 64 MiB file (16,384 pages) whose pages were dropped, so every page
// is a miss, and then again, so every page is a hit. The program counts only this process:
// system-wide counts on a shared machine would make the test depend on its neighbours (the
// system-wide path is the same program with the filter at zero, checked below).
func TestMissThenHit(t *testing.T) {
	bpftest.RequireRoot(t)
	path := filepath.Join(t.TempDir(), "data")
	writeFile(t, path, 64<<20)

	p, err := LoadForProcess(os.Getpid())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer p.Close()

	dropPages(t, path)
	cold := readDelta(t, p, path)
	warm := readDelta(t, p, path)
	coldAccesses, coldMisses := cold.AccessesAndMisses()
	warmAccesses, warmMisses := warm.AccessesAndMisses()
	t.Logf("cold read: %+v -> %d accesses, %d misses", cold, coldAccesses, coldMisses)
	t.Logf("warm read: %+v -> %d accesses, %d misses", warm, warmAccesses, warmMisses)

	pages := uint64(64<<20) / uint64(os.Getpagesize())
	if coldAccesses != pages || coldMisses < pages-16 {
		t.Errorf("cold read: %d accesses and %d misses, want %d and (nearly) as many misses", coldAccesses, coldMisses, pages)
	}
	if warmAccesses != pages || warmMisses != 0 {
		t.Errorf("warm read: %d accesses and %d misses, want %d and none", warmAccesses, warmMisses, pages)
	}
}

// TestSystemWideCountsOtherProcesses loads without a filter and sees this process's reads
// among everyone's. Other processes can only add reads and added pages; their writes dirty
// pages, which the miss formula (added - dirtied) subtracts, so system-wide misses are checked
// through the pages added, and the formula itself by TestMissThenHit's filtered counts.
func TestSystemWideCountsOtherProcesses(t *testing.T) {
	bpftest.RequireRoot(t)
	path := filepath.Join(t.TempDir(), "data")
	writeFile(t, path, 8<<20)
	p, err := Load()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer p.Close()
	dropPages(t, path)
	d := readDelta(t, p, path)
	if accesses, _ := d.AccessesAndMisses(); accesses < 2048 || d.Added < 2048 {
		t.Errorf("system-wide: %d accesses, %d pages added during an 8 MiB cold read, want at least 2048 of each", accesses, d.Added)
	}
}

func writeFile(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	for written := 0; written < size; written += len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// dropPages evicts the file from the page cache: clean pages go at once with DONTNEED.
func dropPages(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
}

func readDelta(t *testing.T, p *Probe, path string) Counts {
	t.Helper()
	before, err := p.Read()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, f); err != nil {
		t.Fatal(err)
	}
	after, err := p.Read()
	if err != nil {
		t.Fatal(err)
	}
	return after.Sub(before)
}

func TestAccessesAndMissesFormula(t *testing.T) {
	for _, tc := range []struct {
		in               Counts
		accesses, misses uint64
	}{
		{Counts{Read: 100, Added: 40}, 100, 40},
		{Counts{Read: 70, Faulted: 30, Added: 40, Dirtied: 10}, 100, 30},
		{Counts{Read: 5, Added: 40}, 5, 5},              // misses never exceed accesses
		{Counts{Read: 50, Added: 3, Dirtied: 8}, 50, 0}, // floored at zero
		{Counts{}, 0, 0},
	} {
		a, m := tc.in.AccessesAndMisses()
		if a != tc.accesses || m != tc.misses {
			t.Errorf("%+v: got %d accesses %d misses, want %d %d", tc.in, a, m, tc.accesses, tc.misses)
		}
	}
}
