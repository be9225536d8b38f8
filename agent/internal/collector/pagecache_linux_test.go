package collector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// TestPageCacheTopFiles reads two files of known sizes cold, through descriptors held open as
// a database holds its files, and finds both among the top files under their paths with one
// access and one miss per page. The program counts only this process, so the neighbours on a
// shared machine cannot push the files out of the top list.
func TestPageCacheTopFiles(t *testing.T) {
	bpftest.RequireRoot(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{filepath.Join(dir, "orders.db"): 6 << 20, filepath.Join(dir, "index.db"): 2 << 20}
	open := map[string]*os.File{}
	for path, size := range sizes {
		if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := unix.Fsync(int(f.Fd())); err != nil { // clean pages, so DONTNEED drops them all
			t.Fatal(err)
		}
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
		open[path] = f
	}

	probe, err := pagecache.LoadForProcess(os.Getpid())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	c := &pageCacheCollector{probe: probe, files: newTopFiles(10, "/proc")}
	defer c.Close()
	if err := c.Collect(context.Background(), newRecordingSink()); err != nil { // baseline
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for path, f := range open {
		for off := 0; off < sizes[path]; off += len(buf) {
			if _, err := f.ReadAt(buf, int64(off)); err != nil {
				t.Fatal(err)
			}
		}
	}
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatal(err)
	}

	page := os.Getpagesize()
	for path, size := range sizes {
		pages := size / page
		accesses := sink.series[fmt.Sprintf("counter spindle.page_cache.file.accesses[{page}]{file.path=%s}", path)]
		misses := sink.series[fmt.Sprintf("counter spindle.page_cache.file.misses[{page}]{file.path=%s}", path)]
		var gotMisses int
		fmt.Sscan(misses, &gotMisses)
		if accesses != fmt.Sprint(pages) || gotMisses < pages-16 || gotMisses > pages {
			t.Errorf("%s: accesses %q, misses %q; want %d and (nearly) as many misses\n%s", path, accesses, misses, pages, sink.render())
		}
	}
}

// filesOf is a reading as pagecache.Probe.ReadFiles returns it: sorted by file.
func filesOf(m map[pagecache.FileID]pagecache.Counts) pagecache.Files {
	var out pagecache.Files
	for id, c := range m {
		out = append(out, pagecache.FileCounts{ID: id, Counts: c})
	}
	out.Sort()
	return out
}

// TestTopFilesDeltasAndNames ranks files by the accesses of the interval, counts a file that
// came back after an eviction from zero, and names a file nothing names by device and inode.
func TestTopFilesDeltasAndNames(t *testing.T) {
	top := newTopFiles(2, t.TempDir()) // an empty /proc: nothing can be named
	a, b, c := pagecache.FileID{Dev: 2049, Ino: 11}, pagecache.FileID{Dev: 2049, Ino: 12}, pagecache.FileID{Dev: 2050, Ino: 13}
	top.next(filesOf(map[pagecache.FileID]pagecache.Counts{a: {Read: 100, Added: 10}, b: {Read: 50}, c: {Read: 500, Added: 90}}))

	got := top.next(filesOf(map[pagecache.FileID]pagecache.Counts{
		a: {Read: 400, Added: 30},  // +300 accesses, +20 misses
		b: {Read: 5, Added: 5},     // evicted and back: 5 accesses, 5 misses since
		c: {Read: 510, Added: 100}, // +10, +10
	}))
	unnamed := func(ino, minor int) string {
		return fmt.Sprintf("inode %d on a file system not mounted here (device 8:%d): not open in any process, not memory-mapped by any process", ino, minor)
	}
	want := []fileUse{{id: a, path: unnamed(11, 1), accesses: 300, misses: 20}, {id: c, path: unnamed(13, 2), accesses: 10, misses: 10}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("top files = %+v, want %+v", got, want)
	}
	if got := top.next(filesOf(map[pagecache.FileID]pagecache.Counts{a: {Read: 400, Added: 30}})); len(got) != 0 {
		t.Errorf("an interval without reads lists %+v, want nothing", got)
	}
}

// TestFilePathsFromOpenDescriptors names files through a /proc tree whose descriptors are links
// to real files, re-checks a known name every tick, and finds the new name after a rename.
func TestFilePathsFromOpenDescriptors(t *testing.T) {
	dir := t.TempDir()
	proc := filepath.Join(dir, "proc")
	data := filepath.Join(dir, "data")
	for _, d := range []string{filepath.Join(proc, "4242", "fd"), filepath.Join(proc, "self"), data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	table := filepath.Join(data, "table.db")
	if err := os.WriteFile(table, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(table, filepath.Join(proc, "4242", "fd", "7")); err != nil {
		t.Fatal(err)
	}
	id, ok := statFileID(table)
	if !ok {
		t.Fatal("stat the table")
	}
	closed := pagecache.FileID{Dev: id.Dev, Ino: id.Ino + 1_000_000}
	paths := newFilePaths(proc)
	names := paths.resolve([]pagecache.FileID{id, closed})
	if names[id] != table || !strings.HasPrefix(names[closed], fmt.Sprintf("inode %d on ", closed.Ino)) {
		t.Fatalf("names = %v, want %s for the open file and its inode for the other", names, table)
	}

	renamed := filepath.Join(data, "table-renamed.db")
	if err := os.Rename(table, renamed); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(proc, "4242", "fd", "7")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(renamed, filepath.Join(proc, "4242", "fd", "7")); err != nil {
		t.Fatal(err)
	}
	if got := paths.resolve([]pagecache.FileID{id})[id]; got != renamed {
		t.Errorf("after a rename: %q, want %q (the old name no longer stats to the inode)", got, renamed)
	}
}

// TestPageCacheBucketsAddUpToTheGroups reads a managed file cold through the read cache's view of
// the program: the interval's counts per hash bucket add up to the file's counts of each group,
// accesses and misses alike, so the console's interval from the buckets rests on the same pages as
// the estimate.
func TestPageCacheBucketsAddUpToTheGroups(t *testing.T) {
	bpftest.RequireRoot(t)
	path := filepath.Join(t.TempDir(), "table.db")
	const size = 64 << 20 // 32 page groups
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fsync(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	key := readcache.FileKey{Dev: uint64(st.Dev), Ino: st.Ino} //nolint:unconvert // Dev is uint32 on some architectures
	probe, err := pagecache.LoadForProcess(os.Getpid())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	c := &pageCacheCollector{probe: probe, files: newTopFiles(10, "/proc")}
	defer c.Close()
	if err := c.SetHoldout(readcache.Holdout{Salt: 0x0123456789abcdef, Threshold: 1 << 30, Percent: 25}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GroupCounts([]readcache.FileKey{key}); err != nil { // lists the file
		t.Fatal(err)
	}
	if _, err := c.BucketCounts(); err != nil { // baseline
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for off := 0; off < size; off += len(buf) {
		if _, err := f.ReadAt(buf, int64(off)); err != nil {
			t.Fatal(err)
		}
	}
	groups, err := c.GroupCounts([]readcache.FileKey{key})
	if err != nil {
		t.Fatal(err)
	}
	buckets, err := c.BucketCounts()
	if err != nil {
		t.Fatal(err)
	}
	var sum readcache.BucketCounts
	used := 0
	for _, b := range buckets {
		sum.ManagedAccessed += b.ManagedAccessed
		sum.ManagedMissed += b.ManagedMissed
		sum.ControlAccessed += b.ControlAccessed
		sum.ControlMissed += b.ControlMissed
		if b.ManagedAccessed+b.ControlAccessed > 0 {
			used++
		}
	}
	g := groups[key]
	want := readcache.BucketCounts{ManagedAccessed: g.ManagedAccessed, ManagedMissed: g.ManagedMissed, ControlAccessed: g.ControlAccessed, ControlMissed: g.ControlMissed}
	if sum != want || g.ManagedAccessed+g.ControlAccessed != size/int64(os.Getpagesize()) {
		t.Errorf("buckets sum to %+v, the file's groups to %+v", sum, want)
	}
	if used < 8 { // 32 groups over 16 buckets leave about 2 empty
		t.Errorf("32 page groups fell in %d buckets: the bucket hash is not spreading them", used)
	}
}
