package writeopt

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// trimReservation returns the blocks reserved past a file's end to the file system and reports
// the file's size and the bytes freed. It holds a write lease meanwhile: the kernel grants one
// only while no other descriptor has the file open for writing, and makes any new open wait
// until it is released, so no append can slip between reading the size and the truncate. A
// truncate to the same size keeps size and content and frees only the blocks past the end (ext4
// and XFS do this on purpose); the modification time it sets is put back, as no data changed.
func trimReservation(path string, _ *growth) (size, freedBytes int64, err error) {
	f, _, err := safeopen.Open(path, safeopen.Write, safeopen.Options{})
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fd := int(f.Fd())
	if _, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_WRLCK); err != nil {
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EBUSY) {
			return 0, 0, errOpenForWriting
		}
		return 0, 0, fmt.Errorf("trim the preallocation of %s: a write lease is needed (fs.leases-enable=1, "+
			"the file's owner or CAP_LEASE): %w", path, err)
	}
	defer func() { _, _ = unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_UNLCK) }() // closing would release it too
	var before unix.Stat_t
	if err := unix.Fstat(fd, &before); err != nil {
		return 0, 0, err
	}
	if before.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, 0, fmt.Errorf("%s: %w", path, safeopen.ErrNotRegular)
	}
	if err := unix.Ftruncate(fd, before.Size); err != nil {
		return 0, 0, fmt.Errorf("trim the preallocation of %s: %w", path, err)
	}
	if err := restoreModificationTime(fd, before.Mtim); err != nil {
		return 0, 0, fmt.Errorf("trim the preallocation of %s: restore its modification time: %w", path, err)
	}
	var after unix.Stat_t
	if err := unix.Fstat(fd, &after); err != nil {
		return 0, 0, err
	}
	return before.Size, max(0, (before.Blocks-after.Blocks)*512), nil
}

// restoreModificationTime is futimens(fd, {UTIME_OMIT, mtime}): utimensat with a NULL path,
// which unix.UtimesNanoAt cannot express.
func restoreModificationTime(fd int, mtime unix.Timespec) error {
	times := [2]unix.Timespec{{Nsec: unix.UTIME_OMIT}, mtime}
	_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&times[0])), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
