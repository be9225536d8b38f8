package proofrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/accel/writeopt"
)

func platformSupported() error { return nil }

// createFile makes a new regular file; O_EXCL and O_NOFOLLOW make sure it is a new file at
// exactly this path, never something a link points to.
func createFile(path string, direct bool) (*os.File, error) {
	flags := unix.O_RDWR | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if direct {
		flags |= unix.O_DIRECT
	}
	fd, err := unix.Open(path, flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openFile opens a file the run created. sync adds O_DSYNC (write-through: each write is on
// storage when it returns), for buffered runs whose writes must reach the device.
func openFile(path string, direct, sync bool) (*os.File, error) {
	flags := unix.O_RDWR | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if direct {
		flags |= unix.O_DIRECT
	}
	if sync {
		flags |= unix.O_DSYNC
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// fileSystemOf reports the file system holding dir: free bytes for unprivileged users, total
// bytes, its type and its device.
func fileSystemOf(dir string) (Device, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return Device{}, fmt.Errorf("statfs %s: %w", dir, err)
	}
	d := Device{Path: dir, FreeBytesAt: int64(st.Bavail) * st.Bsize, TotalBytes: int64(st.Blocks) * st.Bsize,
		FileSystem: fsName(st.Type)}
	var s unix.Stat_t
	if err := unix.Stat(dir, &s); err == nil {
		d.MajorMinor = fmt.Sprintf("%d:%d", unix.Major(s.Dev), unix.Minor(s.Dev))
		if target, err := os.Readlink("/sys/dev/block/" + d.MajorMinor); err == nil {
			d.Name = filepath.Base(target)
		}
	}
	return d, nil
}

func fsName(magic int64) string {
	switch magic {
	case unix.EXT4_SUPER_MAGIC:
		return "ext4" // ext2/3/4 share the magic
	case unix.XFS_SUPER_MAGIC:
		return "xfs"
	case unix.BTRFS_SUPER_MAGIC:
		return "btrfs"
	case unix.TMPFS_MAGIC:
		return "tmpfs"
	case unix.OVERLAYFS_SUPER_MAGIC:
		return "overlay"
	}
	return fmt.Sprintf("0x%x", magic)
}

// dropPages evicts a file's clean pages from the page cache, so every pass starts cold.
func dropPages(f *os.File) error {
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

func countExtents(path string) (int, error) { return writeopt.CountExtents(path) }

// residency tells whether a range of a file is all in the page cache, with mincore on a
// read-only shared mapping of the whole file (which faults nothing in).
type residency struct {
	mapping  []byte
	pageSize int64
}

func newResidency(f *os.File, size int64) (*residency, error) {
	mapping, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s to check page residency: %w", f.Name(), err)
	}
	return &residency{mapping: mapping, pageSize: int64(os.Getpagesize())}, nil
}

// resident reports whether every page of [offset, offset+length) is cached; vector is a
// caller-owned scratch buffer of at least length/pageSize+2 bytes.
func (r *residency) resident(offset, length int64, vector []byte) (bool, error) {
	first := offset / r.pageSize * r.pageSize
	end := min(offset+length, int64(len(r.mapping)))
	pages := (end - first + r.pageSize - 1) / r.pageSize
	if pages <= 0 {
		return true, nil
	}
	base := unsafe.Pointer(&r.mapping[first])
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(base), uintptr(end-first), uintptr(unsafe.Pointer(&vector[0])))
	if errno != 0 {
		return false, errno
	}
	for _, v := range vector[:pages] {
		if v&1 == 0 {
			return false, nil
		}
	}
	return true, nil
}

func (r *residency) close() {
	if r != nil && r.mapping != nil {
		_ = unix.Munmap(r.mapping)
		r.mapping = nil
	}
}

// positionalIO returns pread and pwrite on f for the generator's workers, issued as raw system
// calls: a worker then keeps its P while the I/O is in the kernel (the step raises GOMAXPROCS
// so every worker has one). Through os.File the runtime hands the P off once an I/O outlasts
// 20 µs and takes one back when it returns; on a busy machine each of those waits for a
// timeslice, and a 64 KiB direct write at one in flight measured 39 % below fio's with four
// CPU hogs running (fio's thread has no scheduler of its own to wait for). The cost: a garbage
// collection waits for the I/Os in flight to return before it stops the world.
func positionalIO(f *os.File) (readAt, writeAt func([]byte, int64) (int, error)) {
	fd := f.Fd()
	call := func(number uintptr) func([]byte, int64) (int, error) {
		return func(b []byte, offset int64) (int, error) {
			done := 0
			for done < len(b) {
				n, _, errno := unix.RawSyscall6(number, fd, uintptr(unsafe.Pointer(&b[done])), uintptr(len(b)-done),
					uintptr(offset+int64(done)), 0, 0)
				switch {
				case errno == unix.EINTR:
					continue
				case errno != 0:
					return done, &os.PathError{Op: map[uintptr]string{unix.SYS_PREAD64: "pread", unix.SYS_PWRITE64: "pwrite"}[number], Path: f.Name(), Err: errno}
				case n == 0:
					return done, io.ErrUnexpectedEOF
				}
				done += int(n)
			}
			return done, nil
		}
	}
	return call(unix.SYS_PREAD64), call(unix.SYS_PWRITE64)
}
