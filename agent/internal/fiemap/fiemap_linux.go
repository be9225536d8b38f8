package fiemap

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FIEMAP ABI (linux/fiemap.h).
const (
	fsIOCFiemap      = 0xC020660B // _IOWR('f', 11, struct fiemap)
	fiemapFlagSync   = 0x1
	fiemapExtentLast = 0x1
	batchExtents     = 128 // per ioctl: 7 KiB on the stack, few calls even for badly fragmented files
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

type fiemapRequest struct {
	header  fiemapHeader
	extents [batchExtents]fiemapExtent
}

// CountFD returns the extents of the open regular file fd (named name in errors) as filefrag counts them. It does not
// ask the kernel to sync the file first (filefrag's default too): forcing writeback of a
// database's dirty pages is exactly the interference a background scanner must not cause, so
// data still in delayed allocation shows as the extents the kernel reports for it now.
// A file system without FIEMAP gives an error wrapping ErrUnsupported.
func CountFD(fd int, name string) (int, error) { return count(fd, name, 0) }

// CountFDSynced is CountFD after the kernel writes the file's dirty pages back, so that delayed
// allocation is settled: for a caller that just rewrote the file itself (preallocation,
// defragmentation) and must see where its data landed.
func CountFDSynced(fd int, name string) (int, error) { return count(fd, name, fiemapFlagSync) }

func count(fd int, name string, flags uint32) (int, error) {
	var req fiemapRequest
	var counter Counter
	start := uint64(0)
	for {
		req.header = fiemapHeader{Start: start, Length: ^uint64(0) - start, Flags: flags, ExtentCount: batchExtents}
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), fsIOCFiemap, uintptr(unsafe.Pointer(&req)))
		if errno != 0 {
			if errors.Is(errno, unix.EOPNOTSUPP) || errors.Is(errno, unix.ENOTTY) {
				return 0, fmt.Errorf("%s: %w (%v)", name, ErrUnsupported, errno)
			}
			return 0, fmt.Errorf("FIEMAP on %s: %w", name, errno)
		}
		n := int(req.header.MappedExtents)
		if n == 0 {
			return counter.Extents(), nil
		}
		for _, e := range req.extents[:n] {
			counter.Add(Extent{Logical: e.Logical, Physical: e.Physical, Length: e.Length})
			if e.Flags&fiemapExtentLast != 0 {
				return counter.Extents(), nil
			}
		}
		last := req.extents[n-1]
		start = last.Logical + last.Length
	}
}
