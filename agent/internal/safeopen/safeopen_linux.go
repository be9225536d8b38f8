package safeopen

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Options narrow what Open accepts beyond "a regular file reached without a symlink".
type Options struct {
	// Device, when not zero, is the st_dev the file must be on (the device of the root the
	// walk or the watch started from).
	Device uint64
}

// Open opens path without following a symlink in any component (openat2 RESOLVE_NO_SYMLINKS;
// on kernels before 5.6 O_NOFOLLOW, which covers the last component), without blocking
// (O_NONBLOCK: a FIFO swapped in cannot hang the agent, so no caller holds a lock across a
// blocking open), without touching the access time where allowed, then checks with fstat that
// it is a regular file, on opts.Device if set, and for Write and ReadWrite that it has exactly
// one link. O_NONBLOCK is cleared again, as it means nothing for a regular file.
func Open(path string, access Access, opts Options) (*os.File, unix.Stat_t, error) {
	flags := unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	switch access {
	case Write:
		flags |= unix.O_WRONLY
	case ReadWrite:
		flags |= unix.O_RDWR
	default:
		flags |= unix.O_RDONLY | unix.O_NOATIME
	}
	fd, err := open(path, flags)
	if errors.Is(err, unix.EPERM) && flags&unix.O_NOATIME != 0 { // O_NOATIME needs ownership or CAP_FOWNER
		fd, err = open(path, flags&^unix.O_NOATIME)
	}
	var st unix.Stat_t
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
		return nil, st, &os.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	if errors.Is(err, unix.ENXIO) { // a FIFO without a reader, opened for writing with O_NONBLOCK
		return nil, st, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err != nil {
		return nil, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := check(fd, access, opts, &st); err != nil {
		unix.Close(fd)
		return nil, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, st, fmt.Errorf("open %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), st, nil
}

func check(fd int, access Access, opts Options, st *unix.Stat_t) error {
	if err := unix.Fstat(fd, st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return ErrNotRegular
	}
	if opts.Device != 0 && uint64(st.Dev) != opts.Device {
		return ErrOtherDevice
	}
	if access != Read && st.Nlink != 1 {
		return ErrHardLinked
	}
	return nil
}

// open uses openat2 so that no component of the path may be a symlink; a kernel without it
// (ENOSYS) or a seccomp filter that refuses it (EPERM) falls back to O_NOFOLLOW.
func open(path string, flags int) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   uint64(flags),
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) || (errors.Is(err, unix.EPERM) && flags&unix.O_NOATIME == 0) {
		return unix.Open(path, flags, 0)
	}
	return fd, err
}

// DeviceOf is the st_dev of path itself (not following a final symlink), for Options.Device.
func DeviceOf(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return 0, err
	}
	return uint64(st.Dev), nil
}

// OpenDir opens a directory as Open opens a file (no symlink in any component where the kernel
// can refuse them, O_NOFOLLOW otherwise), for creating files relative to it (openat) instead of
// by a path someone could swap meanwhile. The caller closes the descriptor.
func OpenDir(path string) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
		return -1, st, &os.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	if err != nil {
		return -1, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, st, nil
}
