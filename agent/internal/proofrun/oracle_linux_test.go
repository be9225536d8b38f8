package proofrun

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentPages counts path's pages in the page cache (mincore on a fresh shared mapping).
func residentPages(t *testing.T, path string) (resident, pages int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	m, err := unix.Mmap(int(f.Fd()), 0, int(info.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)),
		uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	for _, v := range vec {
		resident += int(v & 1)
	}
	return resident, len(vec)
}

// The oracle's promise: while enabled, every page of every data file stays resident even when
// the pass drops the files from the page cache (as the scan and the cgroup's reclaim would
// evict them); disabled, the pages can go again.
func TestOracleKeepsEveryDataFileResident(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, size := range []int{3 << 20, 1 << 20, 0} {
		path := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	files = append(files, filepath.Join(dir, "dropped-since-listed"))
	o, err := NewOracle()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, f := range files[:2] {
		if err := unix.Fsync(mustOpen(t, f)); err != nil {
			t.Fatal(err)
		}
		dropFilePages(f)
	}
	if err := o.Enable(context.Background(), Targets{DataFiles: files}); err != nil {
		t.Fatalf("enable: %v", err)
	}
	for _, f := range files[:2] {
		dropFilePages(f)
		if resident, pages := residentPages(t, f); resident != pages {
			t.Errorf("%s: %d of %d pages resident while the oracle is on, want all", f, resident, pages)
		}
	}
	if s := o.Stats(); s.ReadCacheResidentBytes != 4<<20 || s.ReadCachePrefetchedBytes != 4<<20 {
		t.Errorf("stats %+v, want 4 MiB locked and 4 MiB over the run", s)
	}
	if err := o.Disable(context.Background()); err != nil {
		t.Fatalf("disable: %v", err)
	}
	if s := o.Stats(); s.ReadCacheResidentBytes != 0 {
		t.Errorf("%d bytes still locked after Disable", s.ReadCacheResidentBytes)
	}
	dropFilePages(files[0])
	if resident, pages := residentPages(t, files[0]); resident == pages {
		t.Errorf("all %d pages still resident after Disable and a drop: the oracle did not let go", pages)
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
