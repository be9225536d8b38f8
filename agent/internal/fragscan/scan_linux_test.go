package fragscan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
)

// fragmentedTree builds, on a fresh ext4 image: interleaved (fragmented) files at the top and
// in a subdirectory, an empty file, a symlink to a fragmented file outside the root and one to
// a directory outside it, and a second ext4 mounted inside the root holding more files.
func fragmentedTree(t *testing.T) (root string, inside []string) {
	t.Helper()
	fiemaptest.NeedTool(t, "filefrag")
	root = fiemaptest.MountExt4(t, 96<<20)
	if err := os.Mkdir(filepath.Join(root, "base"), 0o755); err != nil {
		t.Fatal(err)
	}
	top := fiemaptest.Paths(root, "wal", 2)
	nested := fiemaptest.Paths(filepath.Join(root, "base"), "rel", 3)
	fiemaptest.Interleave(t, append(append([]string{}, top...), nested...), 120, 8<<10)
	empty := filepath.Join(root, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	inside = append(append(top, nested...), empty)

	outside := t.TempDir()
	outsideFiles := fiemaptest.Paths(outside, "out", 2)
	fiemaptest.Interleave(t, outsideFiles, 50, 8<<10)
	for link, target := range map[string]string{"link-to-file": outsideFiles[0], "link-to-dir": outside} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(root, "othermount")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	fiemaptest.MountExt4At(t, other, 16<<20)
	fiemaptest.Interleave(t, fiemaptest.Paths(other, "elsewhere", 2), 50, 8<<10)
	return root, inside
}

func TestScanCountsLikeFilefragAndStaysInsideTheRoot(t *testing.T) {
	root, inside := fragmentedTree(t)
	results, err := Scan(context.Background(), []string{root}, Settings{MaxFilesPerSecond: 10000, WorstFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 {
		t.Fatalf("results %+v", results)
	}
	r := results[0]

	var want Result
	byPath := map[string]int{}
	for _, p := range inside {
		n := fiemaptest.Filefrag(t, p)
		byPath[p] = n
		want.Files++
		want.Extents += int64(n)
		if n > 1 {
			want.FragmentedFiles++
			want.ExcessExtents += int64(n - 1)
		}
	}
	// lost+found is the only other entry: a directory, so no file.
	if r.Files != want.Files || r.Extents != want.Extents || r.FragmentedFiles != want.FragmentedFiles ||
		r.ExcessExtents != want.ExcessExtents {
		t.Fatalf("scan %+v\nwant files %d, extents %d, fragmented %d, excess %d (filefrag %v)",
			r, want.Files, want.Extents, want.FragmentedFiles, want.ExcessExtents, byPath)
	}
	if want.FragmentedFiles < 3 {
		t.Fatalf("only %d files came out fragmented (%v): the test proves too little", want.FragmentedFiles, byPath)
	}
	if len(r.Worst) != 3 {
		t.Fatalf("worst files %v, want 3", r.Worst)
	}
	for i, f := range r.Worst {
		if byPath[f.Path] != f.Extents {
			t.Errorf("worst %s: %d extents, filefrag %d", f.Path, f.Extents, byPath[f.Path])
		}
		if i > 0 && (r.Worst[i-1].Extents < f.Extents ||
			r.Worst[i-1].Extents == f.Extents && r.Worst[i-1].Path > f.Path) {
			t.Errorf("worst files out of order: %v", r.Worst)
		}
		if f.SizeBytes != 120*8<<10 {
			t.Errorf("%s: size %d, want %d", f.Path, f.SizeBytes, 120*8<<10)
		}
	}
	for _, n := range byPath {
		if n > r.Worst[len(r.Worst)-1].Extents && !containsExtents(r.Worst, n) {
			t.Errorf("a file with %d extents is missing from the worst files %v", n, r.Worst)
		}
	}
	if r.UnsupportedFiles != 0 || r.Unreadable != 0 || r.Duration <= 0 {
		t.Errorf("unexpected %+v", r)
	}
}

func containsExtents(files []FileExtents, n int) bool {
	for _, f := range files {
		if f.Extents == n {
			return true
		}
	}
	return false
}

func TestScanRespectsTheRateLimit(t *testing.T) {
	dir := t.TempDir()
	for _, p := range fiemaptest.Paths(dir, "f", 30) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	results, err := Scan(context.Background(), []string{dir}, Settings{MaxFilesPerSecond: 100, WorstFiles: 1})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if got := results[0].Files + results[0].UnsupportedFiles; got != 30 {
		t.Fatalf("%d files seen, want 30", got)
	}
	// 30 files at 100 per second: the first at once, then one every 10 ms.
	if elapsed < 290*time.Millisecond || elapsed > 3*time.Second {
		t.Fatalf("30 files at 100/s took %v, want about 290 ms", elapsed)
	}
}

func TestScanStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	for _, p := range fiemaptest.Paths(dir, "f", 50) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Scan(ctx, []string{dir}, Settings{MaxFilesPerSecond: 10, WorstFiles: 1})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("cancelled scan: %v after %v", err, time.Since(start))
	}
}

func TestScanRefusesASymlinkRootAndReportsAMissingOne(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	ok := t.TempDir()
	results, err := Scan(context.Background(), []string{link, filepath.Join(dir, "missing"), ok},
		Settings{MaxFilesPerSecond: 100, WorstFiles: 1})
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("want the missing root reported, got %v", err)
	}
	if len(results) != 1 || results[0].Root != ok {
		t.Fatalf("the good root must still be scanned: %+v", results)
	}
}

func TestScanningThreadRunsAtIdlePriority(t *testing.T) {
	var class, nice int
	var tid int
	err := runAtIdlePriority(func() {
		tid = unix.Gettid()
		prio, _, errno := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(tid), 0)
		if errno != 0 {
			t.Errorf("ioprio_get: %v", errno)
		}
		class = int(prio) >> ioprioClassShift
		// getpriority returns 20 - nice for the raw syscall ABI; x/sys returns that raw value.
		p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
		if err != nil {
			t.Error(err)
		}
		nice = 20 - p
	})
	if err != nil {
		t.Fatal(err)
	}
	if class != ioprioClassIdle || nice != niceLowest {
		t.Fatalf("scanning thread: I/O class %d (want %d idle), nice %d (want 19)", class, ioprioClassIdle, nice)
	}
	if unix.Gettid() == tid {
		t.Fatal("the test goroutine ran on the scanning thread")
	}
}
