package writeopt

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/mountinfo"
)

// XFS extent size hints. A file with a hint gets every allocation in whole, aligned units of
// the hint: the windows the agent reserves, and whatever its writer appends past them (where
// XFS would otherwise allocate as it goes, in pieces of its own speculative preallocation).
// XFS takes a hint only while the file has no data extents, so the agent sets it where it first
// holds a new file: the open gate, before the opener's first write; a file inotify reports
// after its first write keeps none (its windows still come from fallocate).

// fsxattr is struct fsxattr of <linux/fs.h>, the argument of FS_IOC_FS[GS]ETXATTR (which
// golang.org/x/sys/unix does not define).
type fsxattr struct {
	Xflags     uint32
	Extsize    uint32 // bytes
	Nextents   uint32 // data extents the file has
	Projid     uint32
	Cowextsize uint32
	_          [8]byte
}

const (
	fsIocFsGetXattr = 0x801c581f // _IOR('X', 31, struct fsxattr)
	fsIocFsSetXattr = 0x401c5820 // _IOW('X', 32, struct fsxattr)
	fsXflagExtsize  = 0x00000800 // FS_XFLAG_EXTSIZE
	// maxExtentSizeHint bounds what one allocation of a hinted file takes. XFS itself refuses a
	// hint above half an allocation group, which is far smaller on small file systems:
	// setExtentSizeHint halves the hint until it is accepted.
	maxExtentSizeHint = 1 << 30
)

func getFsxattr(fd int) (fsxattr, error) {
	var a fsxattr
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), fsIocFsGetXattr, uintptr(unsafe.Pointer(&a)))
	if errno != 0 {
		return a, errno
	}
	return a, nil
}

func setFsxattr(fd int, a *fsxattr) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), fsIocFsSetXattr, uintptr(unsafe.Pointer(a)))
	if errno != 0 {
		return errno
	}
	return nil
}

// hintOutcome says what setExtentSizeHint did.
type hintOutcome int

const (
	hintSet     hintOutcome = iota // the file now allocates in units of the hint
	hintTooLate                    // the file already has data extents: XFS takes no hint then
	hintOwn                        // the file (or its directory, which new files inherit from) has a hint already: kept
)

// setExtentSizeHint gives a file on XFS (fd open on it) an extent size hint of hintBytes, or of
// the largest power-of-two fraction of it the file system accepts (at least one block).
func setExtentSizeHint(fd int, hintBytes int64, blockBytes int64) (hintOutcome, error) {
	a, err := getFsxattr(fd)
	if err != nil {
		return 0, fmt.Errorf("read the extent size hint: %w", err)
	}
	switch {
	case a.Xflags&fsXflagExtsize != 0 && a.Extsize != 0:
		return hintOwn, nil // an administrator's hint (xfs_io -c extsize) wins over ours
	case a.Nextents != 0:
		return hintTooLate, nil
	}
	hint := min(hintBytes, maxExtentSizeHint)
	hint -= hint % max(blockBytes, 1)
	for hint >= blockBytes && blockBytes > 0 {
		want := a
		want.Xflags |= fsXflagExtsize
		want.Extsize = uint32(hint)
		err = setFsxattr(fd, &want)
		if err == nil {
			return hintSet, nil
		}
		if !errors.Is(err, unix.EINVAL) {
			break
		}
		// Too large for this file system's allocation groups, or the file got data meanwhile.
		if now, err := getFsxattr(fd); err == nil && now.Nextents != 0 {
			return hintTooLate, nil
		}
		hint /= 2
		hint -= hint % blockBytes
	}
	return 0, fmt.Errorf("set an extent size hint: %w", err)
}

// isXFS says whether the file system of the statfs result is XFS.
func isXFS(st *unix.Statfs_t) bool { return st.Type == unix.XFS_SUPER_MAGIC }

// ProbeExtentSizeHint says whether extent size hints apply on this host: which XFS file systems
// are mounted (procPath's self/mountinfo) and answer FS_IOC_FSGETXATTR at their mount point. It
// writes nothing. Hints are decided per file, on the file's own file system: this is what the
// capability accel.write_optimization.extent_size_hint reports.
func ProbeExtentSizeHint(procPath string) (xfsMounts []string, err error) {
	file, err := os.Open(procPath + "/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("list the mounted file systems: %w", err)
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for scanner.Scan() {
		mountPoint, fsType, ok := mountPointAndType(scanner.Text())
		if !ok || fsType != "xfs" {
			continue
		}
		dir, err := os.Open(mountPoint)
		if err != nil {
			continue
		}
		_, err = getFsxattr(int(dir.Fd()))
		dir.Close()
		if err == nil {
			xfsMounts = append(xfsMounts, mountPoint)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("list the mounted file systems: %w", err)
	}
	if len(xfsMounts) == 0 {
		return nil, fmt.Errorf("%w: no XFS file system is mounted: extent size hints are XFS's (other file systems "+
			"get their windows from fallocate alone)", ErrUnsupported)
	}
	return xfsMounts, nil
}

// mountPointAndType reads one line of mountinfo(5): the mount point is field 5, the file-system
// type the first field after the " - " separator.
func mountPointAndType(line string) (mountPoint, fsType string, ok bool) {
	before, after, found := strings.Cut(line, " - ")
	fields, tail := strings.Fields(before), strings.Fields(after)
	if !found || len(fields) < 5 || len(tail) < 1 {
		return "", "", false
	}
	return mountinfo.Unescape(fields[4]), tail[0], true
}
