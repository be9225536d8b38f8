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
func CountFD(fd int, name string) (int, error) { return count(fd, name, 0, ^uint64(0)) }

// CountFDSynced is CountFD after the kernel writes the file's dirty pages back, so that delayed
// allocation is settled: for a caller that just rewrote the file itself (preallocation,
// defragmentation) and must see where its data landed.
func CountFDSynced(fd int, name string) (int, error) {
	return count(fd, name, fiemapFlagSync, ^uint64(0))
}

// CountFDSyncedTo is CountFDSynced over the first end bytes of the file only (its size, for a
// caller measuring fragmentation of written data): space reserved past EOF (fallocate keep
// size) is not counted, while an extent that runs on past end still counts once.
func CountFDSyncedTo(fd int, name string, end int64) (int, error) {
	if end <= 0 {
		return 0, nil
	}
	return count(fd, name, fiemapFlagSync, uint64(end))
}

// MappedFD returns the file's mapped ranges after a sync (delayed allocation settled), in
// logical order, with ranges that are logically contiguous merged: where the file has data
// (or reserved space), and so where a copy of it must have space allocated. Holes are left out.
func MappedFD(fd int, name string) ([]Extent, error) {
	var ranges []Extent
	_, err := walk(fd, name, fiemapFlagSync, ^uint64(0), func(e Extent) {
		if n := len(ranges); n > 0 && ranges[n-1].Logical+ranges[n-1].Length == e.Logical {
			ranges[n-1].Length += e.Length
			return
		}
		ranges = append(ranges, e)
	})
	return ranges, err
}

func count(fd int, name string, flags uint32, end uint64) (int, error) {
	return walk(fd, name, flags, end, nil)
}

// walk counts the extents of [0, end) as filefrag does, handing each to each (when not nil).
func walk(fd int, name string, flags uint32, end uint64, each func(Extent)) (int, error) {
	var req fiemapRequest
	var counter Counter
	if each != nil {
		counter.each = each
	}
	start := uint64(0)
	for {
		req.header = fiemapHeader{Start: start, Length: end - start, Flags: flags, ExtentCount: batchExtents}
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), fsIOCFiemap, uintptr(unsafe.Pointer(&req)))
		if errno != 0 {
			if errors.Is(errno, unix.EOPNOTSUPP) || errors.Is(errno, unix.ENOTTY) {
				return 0, fmt.Errorf("%s: %w (%v)", name, ErrUnsupported, errno)
			}
			return 0, fmt.Errorf("FIEMAP on %s: %w", name, errno)
		}
		next, done, err := consumeBatch(&counter, req.header.MappedExtents, req.extents[:], start)
		if err != nil {
			return 0, fmt.Errorf("FIEMAP on %s: %w", name, err)
		}
		if done || next >= end {
			return counter.Extents(), nil
		}
		start = next
	}
}

// consumeBatch feeds one ioctl reply to counter and returns where the next request starts, or
// done. It trusts nothing in the reply: a count beyond the buffer, or extents that do not move
// the start forward (which would loop for ever), are errors rather than a panic or a hang.
func consumeBatch(counter *Counter, mapped uint32, extents []fiemapExtent, start uint64) (next uint64, done bool, err error) {
	if mapped == 0 {
		return 0, true, nil
	}
	if uint64(mapped) > uint64(len(extents)) {
		return 0, false, fmt.Errorf("kernel reported %d extents in a buffer of %d", mapped, len(extents))
	}
	for _, e := range extents[:mapped] {
		counter.Add(Extent{Logical: e.Logical, Physical: e.Physical, Length: e.Length})
		if e.Flags&fiemapExtentLast != 0 {
			return 0, true, nil
		}
	}
	last := extents[mapped-1]
	next = last.Logical + last.Length
	if next <= start || next < last.Logical { // no progress, or the sum wrapped around
		return 0, false, fmt.Errorf("extent at %d of length %d does not advance past %d", last.Logical, last.Length, start)
	}
	return next, false, nil
}
