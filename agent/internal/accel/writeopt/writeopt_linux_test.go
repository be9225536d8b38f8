package writeopt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// logWorkload is log-like growth: writers files grown at once, each to fileBytes in appends of
// appendBytes, each append fsync'd, as a database's logs grow. It is counted in bytes and
// appends, never in seconds, so the machine's speed does not change what is written.
type logWorkload struct {
	writers     int
	fileBytes   int
	appendBytes int
}

// referenceWorkload is the workload of issue 7's measurement (84 → 10 extents before windows
// adapted and reservations were trimmed); longWorkload grows the same files 8 times longer.
var (
	referenceWorkload = logWorkload{writers: 4, fileBytes: 64 << 20, appendBytes: 8 << 10}
	longWorkload      = logWorkload{writers: 4, fileBytes: 512 << 20, appendBytes: 8 << 10}
)

// mountExt4 makes a fresh ext4 file system (fiemaptest's loop-mounted image on tmpfs: fsync is
// cheap there, and the allocator is ext4's own) with its free space aged.
func mountExt4(t *testing.T, sizeBytes int64) string {
	t.Helper()
	dir := fiemaptest.MountExt4(t, sizeBytes)
	ageFreeSpace(t, dir, sizeBytes/4)
	return dir
}

// ageFreeSpace leaves the free space of a fresh file system fragmented, as months of use do:
// it fills usedBytes with 256 KiB files and deletes every other one.
func ageFreeSpace(t *testing.T, dir string, usedBytes int64) {
	t.Helper()
	aging := filepath.Join(dir, "aging")
	if err := os.Mkdir(aging, 0o755); err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 256<<10)
	count := int(usedBytes / int64(len(block)))
	for i := range count {
		if err := os.WriteFile(filepath.Join(aging, strconv.Itoa(i)), block, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unix.Sync()
	for i := 0; i < count; i += 2 {
		if err := os.Remove(filepath.Join(aging, strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	unix.Sync()
}

// grow runs the workload in dir, all writers at once; the content is a function of file and
// offset.
func (w logWorkload) grow(t *testing.T, dir string) []string {
	t.Helper()
	paths := make([]string, w.writers)
	errs := make([]error, w.writers)
	var wg sync.WaitGroup
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("wal%d.log", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.appendFile(paths[i], i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return paths
}

func (w logWorkload) appendFile(path string, seed int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	block := make([]byte, w.appendBytes)
	for offset := 0; offset < w.fileBytes; offset += w.appendBytes {
		fillBlock(block, seed, offset)
		if _, err := f.Write(block); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}

func fillBlock(block []byte, seed, offset int) {
	for i := range block {
		block[i] = byte((offset+i)*31 + seed*7 + (offset+i)>>13)
	}
}

func (w logWorkload) expectedSHA256(seed int) string {
	h := sha256.New()
	block := make([]byte, w.appendBytes)
	for offset := 0; offset < w.fileBytes; offset += w.appendBytes {
		fillBlock(block, seed, offset)
		h.Write(block)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// extents counts with both tools, insists they agree, and returns the total.
func extents(t *testing.T, paths []string) (total int, each []int) {
	t.Helper()
	for _, path := range paths {
		ours, err := CountExtents(path)
		if err != nil {
			t.Fatal(err)
		}
		if theirs := fiemaptest.Filefrag(t, path); ours != theirs {
			t.Errorf("%s: FIEMAP count %d, filefrag %d", path, ours, theirs)
		}
		total += ours
		each = append(each, ours)
	}
	return total, each
}

// growWithout runs w on a fresh aged ext4 of fsBytes without write optimisation and returns the
// extents of its files; the file system stays mounted until the test (or subtest) ends.
func growWithout(t *testing.T, w logWorkload, fsBytes int64) (paths []string, total int, each []int) {
	t.Helper()
	dir := mountExt4(t, fsBytes)
	paths = w.grow(t, dir)
	total, each = extents(t, paths)
	return paths, total, each
}

// growWith runs w on a fresh aged ext4 of fsBytes while the feature preallocates its files,
// then stops the feature (which trims what lies reserved past the files' ends, as their writers
// have closed them) and returns the extents of the files and the feature's statistics. The
// horizon is an hour so that the windows are decided by bytes, not by this machine's speed: any
// run of the workload counts as a file outrunning its windows.
func growWith(t *testing.T, w logWorkload, fsBytes int64) (paths []string, total int, each []int, stats Stats) {
	t.Helper()
	dir := mountExt4(t, fsBytes)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := New(Config{PreallocationHorizon: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Preallocation = []policy.PreallocationRule{{Pattern: filepath.ToSlash(dir) + "/*.log", ChunkBytes: policy.DefaultChunkBytes}}
	if err := f.Apply(ctx, wo); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	paths = w.grow(t, dir)
	modified := make([]time.Time, len(paths))
	for i, path := range paths {
		modified[i] = modificationTime(t, path)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	stats = f.Stats()
	for i, path := range paths {
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err != nil {
			t.Fatal(err)
		}
		// st_blocks also counts the extent tree's own blocks (one 4 KiB block once a file has
		// more than 4 extents); a window left untrimmed would be at least the smallest window.
		if reserved := st.Blocks*512 - st.Size; reserved >= policy.MinChunkBytes {
			t.Errorf("%s: %d bytes still reserved past its end after the feature stopped", path, reserved)
		}
		if got := modificationTime(t, path); !got.Equal(modified[i]) {
			t.Errorf("%s: trimming changed the modification time from %v to %v", path, modified[i], got)
		}
	}
	total, each = extents(t, paths)
	return paths, total, each, stats
}

var extentLine = regexp.MustCompile(`^\s*\d+:\s+(\d+)\.\.\s*(\d+):\s+(\d+)\.\.\s*(\d+):`)

// runStarts is where each run of contiguous blocks of the file begins, in bytes (from filefrag -v
// in 4 KiB blocks, extents merged as filefrag counts them: contiguous logically and physically).
func runStarts(t *testing.T, path string) []int64 {
	t.Helper()
	out, err := exec.Command("filefrag", "-v", "-b4096", path).CombinedOutput()
	if err != nil {
		t.Fatalf("filefrag -v %s: %v\n%s", path, err, out)
	}
	var starts []int64
	lastLogicalEnd, lastPhysicalEnd := int64(-2), int64(-2)
	for line := range strings.SplitSeq(string(out), "\n") {
		m := extentLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var n [4]int64
		for i := range n {
			n[i], _ = strconv.ParseInt(m[i+1], 10, 64)
		}
		if n[0] != lastLogicalEnd+1 || n[2] != lastPhysicalEnd+1 {
			starts = append(starts, n[0]*4096)
		}
		lastLogicalEnd, lastPhysicalEnd = n[1], n[3]
	}
	if len(starts) == 0 {
		t.Fatalf("no extents in filefrag -v %s:\n%s", path, out)
	}
	return starts
}

// runsPast counts the runs of blocks of the files that hold data at or past offset bytes: the
// run that offset falls in and every run after it.
func runsPast(t *testing.T, paths []string, offset int64) (total int) {
	t.Helper()
	for _, path := range paths {
		starts := runStarts(t, path)
		i := 0
		for i+1 < len(starts) && starts[i+1] <= offset {
			i++
		}
		total += len(starts) - i
	}
	return total
}

func modificationTime(t *testing.T, path string) time.Time {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.ModTime()
}

func (w logWorkload) checkContent(t *testing.T, paths []string) {
	t.Helper()
	for i, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() != int64(w.fileBytes) || fileSHA256(t, path) != w.expectedSHA256(i) {
			t.Errorf("%s: size %d or content changed", path, info.Size())
		}
	}
}

func percentPrevented(with, without int) float64 {
	return 100 * float64(without-with) / float64(without)
}

// agentHeadBytes is how much of a file the tests allow to be written before the agent has seen
// it: the writer's fsync allocates the first appends within microseconds of the create and
// inotify tells the agent only afterwards, by one append on an idle machine and by dozens (of
// 128 in this MiB) on a busy one.
const agentHeadBytes = 1 << 20

// The reference workload, with and without. Its files are 64 MiB, what the first window (the
// rule's 64 MiB chunk) covers, so with preallocation each file is one run of blocks from where
// the agent first saw it. Without, ext4 leaves 75 to 85 extents for the 4 files. What the agent
// cannot control is the head it was late for (agentHeadBytes): on an idle machine a file ends
// with 2 extents, 8 for the 4 files (about 90 % prevented on the whole files), but a busy machine
// delays the agent by several appends and each can become an extent of its own (70.1 % once
// beside a CI run, 84.0 % in another). So the test holds each file to one run of blocks past its
// head, and what lies past the heads to at least 80 % prevented (90 % in every run: one run a
// file against ext4's 10, whose other 8 to 12 extents a file are in its head too); the
// whole-file figure is logged, and docs/benchmarks.md records it from an idle machine.
func TestPreallocationPreventsFragmentsAndDefragmentationKeepsContent(t *testing.T) {
	fiemaptest.NeedTool(t, "filefrag")
	w := referenceWorkload
	plainPaths, plainTotal, plainEach := growWithout(t, w, 4<<30)
	paths, total, each, stats := growWith(t, w, 4<<30)
	t.Logf("%d writers × %d MiB in %d KiB appends with fsync: extents without %v (total %d), with preallocation %v (total %d): %.1f %% prevented",
		w.writers, w.fileBytes>>20, w.appendBytes>>10, plainEach, plainTotal, each, total, percentPrevented(total, plainTotal))
	t.Logf("preallocation stats: preallocated %d bytes, trimmed %d bytes, fragments prevented (growths into reserved space) %d",
		stats.PreallocatedBytes, stats.TrimmedBytes, stats.FragmentsPrevented)
	for i, path := range paths {
		starts := runStarts(t, path)
		if start := starts[len(starts)-1]; start > agentHeadBytes {
			t.Errorf("%s (%d extents): its last run of blocks starts at %d bytes; the first window should hold "+
				"everything past the appends written before the agent saw the file", path, each[i], start)
		}
	}
	plainPast, past := runsPast(t, plainPaths, agentHeadBytes), runsPast(t, paths, agentHeadBytes)
	t.Logf("past each file's first MiB: %d runs of blocks without, %d with (%.1f %% prevented)",
		plainPast, past, percentPrevented(past, plainPast))
	if prevented := percentPrevented(past, plainPast); prevented < 80 {
		t.Errorf("preallocation should prevent at least 80 %% of the runs of blocks past the files' first MiB: %d with, %d without (%.1f %%)",
			past, plainPast, prevented)
	}
	if stats.PreallocatedBytes < int64(w.writers*w.fileBytes) || stats.FragmentsPrevented == 0 || stats.TrimmedBytes == 0 {
		t.Errorf("stats do not show the preallocation and the trim: %+v", stats)
	}
	w.checkContent(t, paths)

	// Defragment the fragmented files of the first file system; content must not change.
	ctx := context.Background()
	before := make([]string, len(plainPaths))
	for i, path := range plainPaths {
		before[i] = fileSHA256(t, path)
	}
	f, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Defragmentation = policy.Defragmentation{Enabled: true, ExtentThreshold: 2, IdleOnly: false,
		Include: []string{filepath.ToSlash(filepath.Dir(plainPaths[0])) + "/*.log"}}
	if err := f.Apply(ctx, wo); err != nil {
		t.Fatal(err)
	}
	improved := f.DefragNow(ctx)
	afterTotal, afterEach := extents(t, plainPaths)
	t.Logf("defragmentation: extents %v → %v (%d files improved)", plainEach, afterEach, improved)
	if improved == 0 || afterTotal >= plainTotal || f.Stats().FilesDefragmented != int64(improved) {
		t.Errorf("defragmentation did not reduce extents: %d → %d, stats %+v", plainTotal, afterTotal, f.Stats())
	}
	for i, path := range plainPaths {
		if got := fileSHA256(t, path); got != before[i] || got != w.expectedSHA256(i) {
			t.Errorf("%s: content changed by defragmentation", path)
		}
	}
}

// The long workload: the same files grown to 512 MiB, so the windows must adapt (64, 128, 256 and
// 512 MiB: four hold data). Without preallocation ext4 leaves about 300 extents (75 a file: its
// own allocator already reserves more for a file that keeps growing); with it each file has the
// first append the agent was too late for, one run per window, and a break wherever ext4 could
// not continue a window in the next block group (another file's window or a backup superblock
// is there; one allocation stays inside one 128 MiB group): 5 to 8 a file, about 92 % prevented
// in four runs of five, 88.2 % in one where two files broke into 12 and 13 runs. 96 % would need
// at most 3 a file. Fixed 64 MiB chunks (before the windows adapted) left 35 up to EOF (88.4 %);
// the test asks for at least 85 %. Each side runs on its own file system,
// unmounted before the other starts, to bound the memory the images take on /dev/shm. Minutes
// long: run with SPINDLE_WRITEOPT_LONG=1 (docs/benchmarks.md).
func TestPreallocationOnLongLogGrowth(t *testing.T) {
	if os.Getenv("SPINDLE_WRITEOPT_LONG") == "" {
		t.Skip("set SPINDLE_WRITEOPT_LONG=1 to grow 4 × 512 MiB logs with and without (several minutes)")
	}
	fiemaptest.NeedTool(t, "filefrag")
	w := longWorkload
	var plainTotal, total int
	var plainEach, each []int
	t.Run("without", func(t *testing.T) { _, plainTotal, plainEach = growWithout(t, w, 8<<30) })
	t.Run("with", func(t *testing.T) {
		var paths []string
		var stats Stats
		paths, total, each, stats = growWith(t, w, 8<<30)
		w.checkContent(t, paths)
		t.Logf("preallocation stats: preallocated %d bytes, trimmed %d bytes", stats.PreallocatedBytes, stats.TrimmedBytes)
	})
	if plainTotal == 0 || total == 0 {
		t.Fatal("a side did not run")
	}
	prevented := percentPrevented(total, plainTotal)
	t.Logf("%d writers × %d MiB in %d KiB appends with fsync: extents without %v (total %d), with preallocation %v (total %d): %.1f %% prevented",
		w.writers, w.fileBytes>>20, w.appendBytes>>10, plainEach, plainTotal, each, total, prevented)
	if prevented < 85 {
		t.Errorf("%.1f %% of the extents prevented, want at least 85 %%", prevented)
	}
}

func TestDefragmentationIsUnsupportedOffExt4(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "spindle-writeopt-tmpfs-")
	if err != nil {
		t.Skip("no /dev/shm tmpfs here")
	}
	defer os.RemoveAll(dir)
	f, _ := New(Config{})
	defer f.Close()
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Defragmentation = policy.Defragmentation{Enabled: true, ExtentThreshold: 2, Include: []string{dir + "/**"}}
	err = f.Apply(context.Background(), wo)
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Apply on tmpfs = %v, want ErrUnsupported", err)
	}
	t.Logf("refused with: %v", err)
}
