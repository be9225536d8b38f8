package pagecache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
)

// TestPerFileCounts reads two files of different sizes cold and finds each under its own
// device and inode with its own page count, every page a miss; the system-wide counts are
// unchanged by the per-file map (both files' pages are in them).
func TestPerFileCounts(t *testing.T) {
	bpftest.RequireRoot(t)
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small"), filepath.Join(dir, "large")
	writeFile(t, small, 4<<20)
	writeFile(t, large, 12<<20)

	p, err := LoadForProcess(os.Getpid())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer p.Close()
	dropPages(t, small)
	dropPages(t, large)
	total := readDelta(t, p, small)
	total = addCounts(total, readDelta(t, p, large))

	files, err := p.ReadFiles()
	if err != nil {
		t.Fatal(err)
	}
	batched := 0
	if err := p.readFilesInBatches(func(pagecacheFileKey, pagecacheFileCounts) { batched++ }); err != nil || batched != len(files) {
		t.Errorf("batch lookup: %d files, error %v; want the %d files of ReadFiles (the program needs 6.10, batches exist since 5.6)", batched, err, len(files))
	}
	page := uint64(os.Getpagesize())
	var perFile uint64
	for path, size := range map[string]uint64{small: 4 << 20, large: 12 << 20} {
		got, ok := files.Get(statID(t, path))
		if !ok {
			t.Fatalf("%s (%v) is not among the %d files counted", path, statID(t, path), len(files))
		}
		accesses, misses := got.AccessesAndMisses()
		if accesses != size/page || misses < size/page-16 {
			t.Errorf("%s: %d accesses and %d misses (%+v), want %d and (nearly) as many misses", path, accesses, misses, got, size/page)
		}
		perFile += accesses
	}
	if all, _ := total.AccessesAndMisses(); all < perFile {
		t.Errorf("system-wide accesses %d are fewer than the two files' %d", all, perFile)
	}
}

func statID(t *testing.T, path string) FileID {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return FileID{Dev: uint64(st.Dev), Ino: st.Ino}
}

func addCounts(a, b Counts) Counts {
	return Counts{Read: a.Read + b.Read, Faulted: a.Faulted + b.Faulted, Added: a.Added + b.Added, Dirtied: a.Dirtied + b.Dirtied}
}

// userspaceDev must agree with the C library's makedev, as x/sys/unix implements it on Linux.
func TestUserspaceDevIsMakedev(t *testing.T) {
	for _, d := range [][2]uint32{{0, 0}, {8, 1}, {259, 3}, {4095, 255}, {4096, 256}, {1 << 19, 1<<20 - 1}} {
		if got, want := userspaceDev(d[0], d[1]), unix.Mkdev(d[0], d[1]); got != want {
			t.Errorf("userspaceDev(%d, %d) = %d, want %d", d[0], d[1], got, want)
		}
	}
}
