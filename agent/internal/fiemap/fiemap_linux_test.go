package fiemap

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
)

func countPath(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := CountFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func agreeWithFilefrag(t *testing.T, paths ...string) (counts []int) {
	t.Helper()
	for _, p := range paths {
		ours, theirs := countPath(t, p), fiemaptest.Filefrag(t, p)
		if ours != theirs {
			t.Errorf("%s: FIEMAP count %d, filefrag %d", filepath.Base(p), ours, theirs)
		}
		counts = append(counts, ours)
	}
	return counts
}

func TestCountsAgreeWithFilefragOnInterleavedAppends(t *testing.T) {
	fiemaptest.NeedTool(t, "filefrag")
	dir := fiemaptest.MountExt4(t, 64<<20)
	paths := fiemaptest.Paths(dir, "log", 3)
	fiemaptest.Interleave(t, paths, 200, 8<<10)
	counts := agreeWithFilefrag(t, paths...)
	fragmented := 0
	for _, n := range counts {
		if n > 1 {
			fragmented++
		}
	}
	if fragmented == 0 {
		t.Fatalf("interleaved fsynced appends left no file fragmented (%v): the test proves nothing", counts)
	}
	t.Logf("extents per file: %v", counts)
}

// A file with holes punched into it: FIEMAP returns one extent per remaining piece, filefrag
// counts them as one fragment because each piece sits where the file's layout expects it.
func TestCountsAgreeWithFilefragOnHolesAndUnwrittenSpace(t *testing.T) {
	fiemaptest.NeedTool(t, "filefrag")
	dir := t.TempDir()
	if fs := statfsType(t, dir); fs != unix.EXT4_SUPER_MAGIC {
		dir = fiemaptest.MountExt4(t, 32<<20)
	}
	holes := filepath.Join(dir, "holes")
	if err := os.WriteFile(holes, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(holes, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	for off := int64(64 << 10); off < 1<<20; off += 128 << 10 {
		if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, 64<<10); err != nil {
			t.Fatal(err)
		}
	}
	unwritten := filepath.Join(dir, "unwritten")
	u, err := os.Create(unwritten)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if err := unix.Fallocate(int(u.Fd()), 0, 0, 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := u.WriteAt(make([]byte, 4096), 512<<10); err != nil { // splits unwritten/written
		t.Fatal(err)
	}
	if err := u.Sync(); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	counts := agreeWithFilefrag(t, holes, unwritten, empty)
	if counts[2] != 0 {
		t.Errorf("empty file: %d extents, want 0", counts[2])
	}
}

func TestUnsupportedFileSystem(t *testing.T) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no procfs")
	}
	defer f.Close()
	if _, err := CountFile(f); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("FIEMAP on procfs: %v, want ErrUnsupported", err)
	}
}

func statfsType(t *testing.T, dir string) int64 {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return st.Type
}

// Space reserved past EOF (fallocate, keep size) away from the data is a fragment to filefrag
// but not to CountFDSyncedTo(size): the write-optimisation comparison counts written data only.
func TestCountUpToEOFLeavesOutSpaceReservedPastIt(t *testing.T) {
	dir := fiemaptest.MountExt4(t, 256<<20)
	path, other := filepath.Join(dir, "data"), filepath.Join(dir, "neighbour")
	if err := os.WriteFile(path, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	unix.Sync()
	// The neighbour takes the blocks right after the data, so the reservation lands elsewhere.
	if err := os.WriteFile(other, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	unix.Sync()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 64<<10, 4<<20); err != nil {
		t.Fatal(err)
	}
	all, err := CountFDSynced(int(f.Fd()), path)
	if err != nil {
		t.Fatal(err)
	}
	upToEOF, err := CountFDSyncedTo(int(f.Fd()), path, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("extents with the reservation: %d, up to EOF: %d", all, upToEOF)
	if upToEOF != 1 || all < 2 {
		t.Errorf("up to EOF %d (want 1), all %d (want the reservation as a second fragment)", upToEOF, all)
	}
	if n, err := CountFDSyncedTo(int(f.Fd()), path, 0); n != 0 || err != nil {
		t.Errorf("an empty range: %d, %v; want 0", n, err)
	}
}
