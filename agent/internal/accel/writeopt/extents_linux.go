package writeopt

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FIEMAP ABI (linux/fiemap.h).
const (
	fsIOCFiemap      = 0xC020660B // _IOWR('f', 11, struct fiemap)
	fiemapFlagSync   = 0x1
	fiemapExtentLast = 0x1
	fiemapBatch      = 256
)

type fiemapHeader struct {
	Start, Length                               uint64
	Flags, MappedExtents, ExtentCount, Reserved uint32
}

type fiemapExtent struct {
	Logical, Physical, Length uint64
	Reserved64                [2]uint64
	Flags                     uint32
	Reserved                  [3]uint32
}

// CountExtents returns the fragments of a file as filefrag counts them: FIEMAP extents
// (after syncing, so delayed allocation is settled), where an extent continuing the previous
// one both logically and physically (e.g. written and unwritten halves of one run) is not a
// new fragment. An empty file has 0.
func CountExtents(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return countExtents(f)
}

func countExtents(f *os.File) (int, error) {
	type request struct {
		header  fiemapHeader
		extents [fiemapBatch]fiemapExtent
	}
	var req request
	fragments := 0
	var nextLogical, nextPhysical uint64
	first := true
	start := uint64(0)
	for {
		req.header = fiemapHeader{Start: start, Length: ^uint64(0) - start, Flags: fiemapFlagSync, ExtentCount: fiemapBatch}
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), fsIOCFiemap, uintptr(unsafe.Pointer(&req))); errno != 0 {
			if errno == unix.EOPNOTSUPP || errno == unix.ENOTTY {
				return 0, fmt.Errorf("FIEMAP on %s: %w (%v)", f.Name(), ErrUnsupported, errno)
			}
			return 0, fmt.Errorf("FIEMAP on %s: %w", f.Name(), errno)
		}
		n := int(req.header.MappedExtents)
		if n == 0 {
			return fragments, nil
		}
		for _, e := range req.extents[:n] {
			if first || e.Logical != nextLogical || e.Physical != nextPhysical {
				fragments++
			}
			first = false
			nextLogical, nextPhysical = e.Logical+e.Length, e.Physical+e.Length
			if e.Flags&fiemapExtentLast != 0 {
				return fragments, nil
			}
		}
		start = nextLogical
	}
}
