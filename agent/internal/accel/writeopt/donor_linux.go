package writeopt

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap"
	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// DefaultFreeSpaceFloorPercent and DefaultFreeSpaceFloorBytes: without a configured floor,
// defragmentation leaves at least the larger of these free.
const (
	DefaultFreeSpaceFloorBytes   = 1 << 30
	DefaultFreeSpaceFloorPercent = 5
)

// floorFor is the free space a file system must keep: the configured floor, or the default.
func floorFor(fs *unix.Statfs_t, configured int64) int64 {
	if configured > 0 {
		return configured
	}
	total := int64(fs.Blocks) * fs.Bsize
	return max(DefaultFreeSpaceFloorBytes, total*DefaultFreeSpaceFloorPercent/100)
}

// available is the space non-root users may still take (f_bavail): what "full" means to them.
func available(fs *unix.Statfs_t) int64 { return int64(fs.Bavail) * fs.Bsize }

// donorNeeds is the space a donor for ranges takes: the ranges in whole blocks, one block per
// range for the extent tree, and a megabyte of slack for the allocator's own metadata.
func donorNeeds(ranges []fiemap.Extent, blockSize int64) int64 {
	need := int64(1 << 20)
	for _, r := range ranges {
		need += (int64(r.Length)+blockSize-1)/blockSize*blockSize + blockSize
	}
	return need
}

// createDonor makes the donor file for orig on orig's file system without a name anyone can
// see or race: O_TMPFILE in dir (the directory descriptor orig's path led to, on orig's device),
// or, where the file system has no O_TMPFILE, a random name created exclusively relative to dir
// and unlinked at once. It is sized like orig and allocated exactly where orig has data (holes
// stay holes: a sparse file needs only what it holds), after checking that this leaves at least
// floor bytes available, and again after allocating (someone else may have written meanwhile).
func createDonor(dir int, orig *os.File, origSize int64, ranges []fiemap.Extent, floor int64) (*os.File, error) {
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(orig.Fd()), &fs); err != nil {
		return nil, err
	}
	floor = floorFor(&fs, floor)
	need := donorNeeds(ranges, fs.Bsize)
	if free := available(&fs); free-need < floor {
		return nil, fmt.Errorf("defragmenting %s needs %d bytes; %d are available and %d must stay free: %w",
			orig.Name(), need, free, floor, ErrBelowFloor)
	}
	fd, err := unix.Openat(dir, ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
		fd, err = namedDonor(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("create the donor file for %s: %w", orig.Name(), err)
	}
	donor := os.NewFile(uintptr(fd), filepath.Join(filepath.Dir(orig.Name()), "(donor)"))
	if err := allocateDonor(fd, origSize, ranges); err != nil {
		donor.Close()
		if errors.Is(err, unix.ENOSPC) {
			return nil, fmt.Errorf("defragmenting %s: the file system filled up while the donor was allocated: %w", orig.Name(), ErrBelowFloor)
		}
		return nil, fmt.Errorf("allocate the donor file for %s: %w", orig.Name(), err)
	}
	if donorAllocated != nil {
		donorAllocated()
	}
	if err := unix.Fstatfs(fd, &fs); err == nil && available(&fs) < floor {
		donor.Close() // its blocks go back at once: it has no name
		return nil, fmt.Errorf("defragmenting %s: other writes took the file system to %d bytes available, below the floor of %d: %w",
			orig.Name(), available(&fs), floor, ErrBelowFloor)
	}
	return donor, nil
}

// donorAllocated, when set (tests), runs when a donor's blocks are allocated: the moment the
// file system is fullest.
var donorAllocated func()

// namedDonor creates an unpredictable name exclusively relative to dir, never following a
// link, and unlinks it at once: the open descriptor keeps the file until it is closed.
func namedDonor(dir int) (int, error) {
	suffix := make([]byte, 8)
	_, _ = rand.Read(suffix)
	name := ".spindle-defrag-" + hex.EncodeToString(suffix)
	fd, err := unix.Openat(dir, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, err
	}
	if err := unix.Unlinkat(dir, name, 0); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// allocateDonor gives the donor orig's size and allocates its blocks where orig has data.
func allocateDonor(fd int, size int64, ranges []fiemap.Extent) error {
	if err := unix.Ftruncate(fd, size); err != nil {
		return err
	}
	for _, r := range ranges {
		if err := unix.Fallocate(fd, 0, int64(r.Logical), int64(r.Length)); err != nil {
			return err
		}
	}
	return nil
}

// openParent opens the directory orig's path names, refusing one on another device: the donor
// must share orig's file system (EXT4_IOC_MOVE_EXT swaps blocks within one).
func openParent(path string, origDevice uint64) (int, error) {
	dir, st, err := safeopen.OpenDir(filepath.Dir(path))
	if err != nil {
		return -1, err
	}
	if uint64(st.Dev) != origDevice {
		unix.Close(dir)
		return -1, fmt.Errorf("the directory of %s is now on another file system: %w", path, safeopen.ErrOtherDevice)
	}
	return dir, nil
}
