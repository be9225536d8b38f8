package writeopt

// Issue 25, M2: defragmentation's donor file used to be sized by the target's apparent size with
// no free-space check, and created by path in the target's directory. A local user's 4 GiB sparse
// file with 64 extents on a 272 MiB ext4 image took the available space from 251 MiB to 0. These
// tests run on such an image (loop-mounted, as root) and watch the available space the whole time.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
)

const imageBytes = 272 << 20

// lowestAvailable samples the file system's available space (f_bavail, what non-root users may
// still take) as fast as it can until stopped, and returns the lowest it saw.
func lowestAvailable(t *testing.T, dir string) (stop func() int64) {
	t.Helper()
	var lowest atomic.Int64
	lowest.Store(1 << 62)
	sample := func() {
		var fs unix.Statfs_t
		if err := unix.Statfs(dir, &fs); err == nil {
			for now := int64(fs.Bavail) * fs.Bsize; now < lowest.Load(); {
				if lowest.CompareAndSwap(lowest.Load(), now) {
					break
				}
			}
		}
	}
	// The moment a donor is allocated is sampled for certain; the sampler covers the rest.
	donorAllocated = sample
	done := make(chan struct{})
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for first := true; ; first = false {
			sample()
			if first {
				close(started)
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	<-started
	return func() int64 {
		close(done)
		wg.Wait()
		donorAllocated = nil
		return lowest.Load()
	}
}

func availableOf(t *testing.T, dir string) int64 {
	t.Helper()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	return int64(fs.Bavail) * fs.Bsize
}

// sparseFile writes the file: 4 GiB apparent, 64 runs of 1 MiB spread through it.
func sparseFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for i := range 64 {
		chunk[0] = byte(i)
		if _, err := f.WriteAt(chunk, int64(i)*(64<<20)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(4 << 30); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func TestDefragmentationNeverTakesFreeSpaceBelowTheFloor(t *testing.T) {
	dir := fiemaptest.MountExt4(t, imageBytes)
	path := filepath.Join(dir, "sparse.db")
	sparseFile(t, path)
	start := availableOf(t, dir)
	t.Logf("available before: %d MiB", start>>20)

	// A floor the donor (64 MiB where the file has data, not 4 GiB) still clears: it may run.
	floor := start - 100<<20
	stop := lowestAvailable(t, dir)
	_, err := defragment(path, 64<<20, floor)
	lowest := stop()
	if lowest < floor {
		t.Fatalf("available space fell to %d MiB, below the floor of %d MiB (%v)", lowest>>20, floor>>20, err)
	}
	if err != nil {
		t.Fatalf("defragment with %d MiB above the floor: %v", (start-floor)>>20, err)
	}
	t.Logf("floor %d MiB: the lowest available was %d MiB", floor>>20, lowest>>20)

	// A floor the donor would cross: refused, nothing allocated.
	floor = start - 32<<20
	stop = lowestAvailable(t, dir)
	_, err = defragment(path, 64<<20, floor)
	lowest = stop()
	if !errors.Is(err, ErrBelowFloor) {
		t.Fatalf("defragment needing more than the %d MiB above the floor: %v, want ErrBelowFloor", (start-floor)>>20, err)
	}
	if lowest < start-(1<<20) { // a journal block or two may come and go
		t.Fatalf("a refused defragmentation took available space from %d to %d MiB", start>>20, lowest>>20)
	}
	if got := availableOf(t, dir); got < start-(1<<20) {
		t.Fatalf("available space after: %d MiB, before: %d MiB", got>>20, start>>20)
	}
}

func TestTheDonorNeverHasANameInTheDirectory(t *testing.T) {
	dir := fiemaptest.MountExt4(t, imageBytes)
	paths := []string{filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")}
	fiemaptest.Interleave(t, paths, 64, 256<<10) // two 16 MiB files, interleaved on disk
	before := fileSHA256(t, paths[0])
	extentsBefore, err := CountExtents(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	watch, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(watch)
	if _, err := unix.InotifyAddWatch(watch, dir, unix.IN_CREATE|unix.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	floor := availableOf(t, dir) - 64<<20
	stop := lowestAvailable(t, dir)
	result, err := defragment(paths[0], 1<<20, floor)
	lowest := stop()
	if err != nil {
		t.Fatal(err)
	}
	buffer := make([]byte, 4096)
	n, _ := unix.Read(watch, buffer)
	for offset := 0; offset+unix.SizeofInotifyEvent <= n; {
		event := (*unix.InotifyEvent)(unsafe.Pointer(&buffer[offset]))
		name := strings.TrimRight(string(buffer[offset+unix.SizeofInotifyEvent:offset+unix.SizeofInotifyEvent+int(event.Len)]), "\x00")
		t.Errorf("a name appeared in the directory during defragmentation: %q", name)
		offset += unix.SizeofInotifyEvent + int(event.Len)
	}
	if lowest < floor {
		t.Errorf("available space fell to %d MiB, below the floor of %d MiB", lowest>>20, floor>>20)
	}
	if !result.Improved || result.ExtentsAfter >= extentsBefore {
		t.Errorf("an interleaved file was not defragmented: %+v (had %d extents)", result, extentsBefore)
	}
	if fileSHA256(t, paths[0]) != before {
		t.Error("defragmentation changed the content")
	}
}
