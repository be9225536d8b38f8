package fragscan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap"
)

// ioprio_set(2) ABI.
const (
	ioprioWhoProcess = 1 // with a thread id: that thread only
	ioprioClassIdle  = 3
	ioprioClassShift = 13
	niceLowest       = 19
)

// runAtIdlePriority runs fn on a thread of its own at idle I/O priority and nice 19. The
// goroutine never unlocks the thread, so when it ends the runtime retires the thread instead of
// handing its lowered priority to other goroutines.
func runAtIdlePriority(fn func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		tid := unix.Gettid()
		if _, _, errno := unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid),
			ioprioClassIdle<<ioprioClassShift); errno != 0 {
			errc <- fmt.Errorf("set idle I/O priority on the scanning thread (scan skipped so it cannot compete with the workload): %w", errno)
			return
		}
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, niceLowest); err != nil {
			errc <- fmt.Errorf("set nice %d on the scanning thread (scan skipped so it cannot compete with the workload): %w", niceLowest, err)
			return
		}
		fn()
		errc <- nil
	}()
	return <-errc
}

// scanRoot walks one root without following symlinks or leaving the root's file system.
func scanRoot(ctx context.Context, root string, s Settings, pace *pacer) (Result, error) {
	start := time.Now()
	var st unix.Stat_t
	if err := unix.Lstat(root, &st); err != nil {
		return Result{}, fmt.Errorf("scan %s: %w", root, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return Result{}, fmt.Errorf("scan %s: it is a symbolic link; give the path it points to", root)
	}
	rootDev := uint64(st.Dev)
	r := Result{Root: root}
	worst := worstFiles{limit: s.WorstFiles}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			if path == root {
				return err
			}
			if !errors.Is(err, fs.ErrNotExist) { // a vanished entry is normal in a live database
				r.Unreadable++
			}
			return nil
		}
		switch {
		case d.IsDir():
			if path != root && !sameDevice(d, rootDev) {
				return fs.SkipDir // a mount point: another file system is another root's business
			}
		case d.Type().IsRegular():
			if err := pace.wait(ctx); err != nil {
				return err
			}
			file, outcome := mapFile(path, rootDev)
			r.count(file, outcome)
			if outcome == mapped {
				worst.offer(file)
			}
		}
		return nil // symlinks, devices, sockets, FIFOs: not files with extents of their own
	})
	if err != nil {
		return Result{}, fmt.Errorf("scan %s: %w", root, err)
	}
	r.Worst = worst.sorted()
	r.Finished = time.Now()
	r.Duration = r.Finished.Sub(start)
	return r, nil
}

func sameDevice(d fs.DirEntry, dev uint64) bool {
	info, err := d.Info()
	if err != nil {
		return false // vanished: nothing to walk
	}
	st, ok := info.Sys().(*syscall.Stat_t) // os fills in syscall's type, not x/sys/unix's
	if !ok {
		return false
	}
	return uint64(st.Dev) == dev
}

// mapFile opens path without following a symlink swapped in since the walk saw it, without
// blocking on a FIFO swapped in, and without touching its access time where allowed.
func mapFile(path string, rootDev uint64) (FileExtents, fileOutcome) {
	const flags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := unix.Open(path, flags|unix.O_NOATIME, 0)
	if errors.Is(err, unix.EPERM) { // O_NOATIME needs ownership or CAP_FOWNER
		fd, err = unix.Open(path, flags, 0)
	}
	switch {
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP):
		return FileExtents{}, skipped
	case err != nil:
		return FileExtents{}, unreadable
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return FileExtents{}, unreadable
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || uint64(st.Dev) != rootDev {
		return FileExtents{}, skipped
	}
	n, err := fiemap.CountFD(fd, path)
	switch {
	case errors.Is(err, fiemap.ErrUnsupported):
		return FileExtents{}, unsupported
	case err != nil:
		return FileExtents{}, unreadable
	}
	return FileExtents{Path: path, SizeBytes: st.Size, Extents: n}, mapped
}
