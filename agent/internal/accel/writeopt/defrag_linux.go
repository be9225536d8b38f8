package writeopt

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap"
	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// EXT4_IOC_MOVE_EXT ABI (fs/ext4/ext4.h).
const (
	ext4IOCMoveExt = 0xC028660F // _IOWR('f', 15, struct move_extent)
	ext4SuperMagic = 0xEF53
)

type moveExtent struct {
	Reserved   uint32
	DonorFd    uint32
	OrigStart  uint64 // in file system blocks
	DonorStart uint64
	Len        uint64
	MovedLen   uint64
}

// checkDefragSupported fails with ErrUnsupported unless path lies on ext4 (the move-extent
// ioctl exists only there; ext2/3 share the magic and fail later per file, reported the same).
func checkDefragSupported(path string) error {
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil {
		return err
	}
	if fs.Type != ext4SuperMagic {
		return fmt.Errorf("defragmentation of %s: %w: it needs ext4 (file system magic %#x)", path, ErrUnsupported, fs.Type)
	}
	return nil
}

// defragment rewrites path into fewer extents, or leaves it exactly as it was. It never takes
// the file system's available space below floorBytes (0: the default floor, donor_linux.go).
func defragment(path string, moveChunkBytes, floorBytes int64) (defragResult, error) {
	if err := checkDefragSupported(path); err != nil {
		return defragResult{}, err
	}
	// The ioctl needs the file open for reading and writing. The path comes from a walk of a
	// directory others may write: refuse symlinks, special files and hard-linked files.
	orig, origStat, err := safeopen.Open(path, safeopen.ReadWrite, safeopen.Options{})
	if err != nil {
		return defragResult{}, err
	}
	defer orig.Close()
	dir, err := openParent(path, uint64(origStat.Dev))
	if err != nil {
		return defragResult{}, err
	}
	defer unix.Close(dir)
	info, err := orig.Stat()
	if err != nil {
		return defragResult{}, err
	}
	var result defragResult
	if result.ExtentsBefore, err = countExtents(orig); err != nil || info.Size() == 0 {
		return result, err
	}
	if err := orig.Sync(); err != nil { // move-extent works on allocated blocks
		return result, err
	}
	ranges, err := fiemap.MappedFD(int(orig.Fd()), path)
	if err != nil {
		return result, err
	}
	donor, err := createDonor(dir, orig, info.Size(), ranges, floorBytes)
	if err != nil {
		return result, err
	}
	defer donor.Close()
	donorExtents, err := countExtents(donor)
	if err != nil {
		return result, err
	}
	if donorExtents >= result.ExtentsBefore {
		result.ExtentsAfter = result.ExtentsBefore
		return result, nil // the free space is no less fragmented than the file: nothing to gain
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(orig.Fd()), &fs); err != nil {
		return result, err
	}
	blockSize := fs.Bsize
	blocks := uint64((info.Size() + blockSize - 1) / blockSize)
	chunk := uint64(max(1, moveChunkBytes/blockSize))
	moved, err := swapBlocks(orig, donor, 0, blocks, chunk)
	if err != nil {
		_, undoErr := swapBlocks(orig, donor, 0, moved, chunk)
		return result, errors.Join(fmt.Errorf("move extents of %s: %w", path, err), undoErr)
	}
	if result.ExtentsAfter, err = countExtents(orig); err != nil {
		return result, err
	}
	if result.ExtentsAfter >= result.ExtentsBefore {
		// Swapping again puts every original block back: the file is exactly as it was.
		if _, err := swapBlocks(orig, donor, 0, blocks, chunk); err != nil {
			return result, fmt.Errorf("restore the extents of %s: %w", path, err)
		}
		result.ExtentsAfter = result.ExtentsBefore
		return result, nil
	}
	result.Improved = true
	return result, nil
}

// swapBlocks exchanges blocks [from, from+count) of orig and donor, chunk blocks per call,
// and returns how many it exchanged.
func swapBlocks(orig, donor *os.File, from, count, chunk uint64) (uint64, error) {
	done := uint64(0)
	for done < count {
		me := moveExtent{DonorFd: uint32(donor.Fd()), OrigStart: from + done, DonorStart: from + done,
			Len: min(chunk, count-done)}
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, orig.Fd(), ext4IOCMoveExt, uintptr(unsafe.Pointer(&me)))
		done += me.MovedLen
		if errno != 0 {
			if errno == unix.EOPNOTSUPP || errno == unix.ENOTTY {
				return done, fmt.Errorf("%w: EXT4_IOC_MOVE_EXT (%v)", ErrUnsupported, errno)
			}
			return done, errno
		}
		if me.MovedLen == 0 {
			return done, fmt.Errorf("EXT4_IOC_MOVE_EXT moved nothing at block %d", from+done)
		}
	}
	return done, nil
}
