package writeopt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

const (
	proofWriters     = 4
	proofFileBytes   = 64 << 20
	proofAppendBytes = 8 << 10
	proofChunkBytes  = policy.DefaultChunkBytes
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

// growConcurrently appends proofAppendBytes at a time, fsyncing each, to proofWriters files at
// once, the way a database's logs grow; the content is a function of file and offset.
func growConcurrently(t *testing.T, dir string) []string {
	t.Helper()
	paths := make([]string, proofWriters)
	errs := make([]error, proofWriters)
	var wg sync.WaitGroup
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("wal%d.log", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = appendFile(paths[i], i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return paths
}

func appendFile(path string, seed int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	block := make([]byte, proofAppendBytes)
	for offset := 0; offset < proofFileBytes; offset += proofAppendBytes {
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

func expectedSHA256(seed int) string {
	h := sha256.New()
	block := make([]byte, proofAppendBytes)
	for offset := 0; offset < proofFileBytes; offset += proofAppendBytes {
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

func TestPreallocationPreventsFragmentsAndDefragmentationKeepsContent(t *testing.T) {
	fiemaptest.NeedTool(t, "filefrag")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	without := mountExt4(t, 4<<30)
	plainPaths := growConcurrently(t, without)
	plainTotal, plainEach := extents(t, plainPaths)

	with := mountExt4(t, 4<<30)
	f, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Preallocation = []policy.PreallocationRule{{Pattern: filepath.ToSlash(with) + "/*.log", ChunkBytes: proofChunkBytes}}
	if err := f.Apply(ctx, wo); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	preallocatedPaths := growConcurrently(t, with)
	preallocatedTotal, preallocatedEach := extents(t, preallocatedPaths)
	stats := f.Stats()
	t.Logf("4 writers × 64 MiB in 8 KiB appends with fsync: extents without %v (total %d), with preallocation %v (total %d)",
		plainEach, plainTotal, preallocatedEach, preallocatedTotal)
	t.Logf("preallocation stats: preallocated %d bytes, fragments prevented (growths into reserved space) %d",
		stats.PreallocatedBytes, stats.FragmentsPrevented)
	if preallocatedTotal*3 > plainTotal {
		t.Errorf("preallocation should leave far fewer (at least 3× fewer) extents: %d with, %d without",
			preallocatedTotal, plainTotal)
	}
	if stats.PreallocatedBytes < proofWriters*proofFileBytes || stats.FragmentsPrevented == 0 {
		t.Errorf("stats do not show the preallocation: %+v", stats)
	}
	for i, path := range preallocatedPaths {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() != proofFileBytes || fileSHA256(t, path) != expectedSHA256(i) {
			t.Errorf("%s: preallocation changed the size (%d) or the content", path, info.Size())
		}
	}

	// Defragment the fragmented files of the first file system; content must not change.
	before := make([]string, len(plainPaths))
	for i, path := range plainPaths {
		before[i] = fileSHA256(t, path)
	}
	wo = policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Defragmentation = policy.Defragmentation{Enabled: true, ExtentThreshold: 2, IdleOnly: false,
		Include: []string{filepath.ToSlash(without) + "/*.log"}}
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
		if got := fileSHA256(t, path); got != before[i] || got != expectedSHA256(i) {
			t.Errorf("%s: content changed by defragmentation", path)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
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
