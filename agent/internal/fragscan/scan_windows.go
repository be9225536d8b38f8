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

	"golang.org/x/sys/windows"

	"github.com/spindle-io/spindle/agent/internal/fiemap"
)

// threadModeBackgroundBegin (SetThreadPriority) gives the thread very low I/O priority and low
// memory priority, Windows' counterpart of the idle I/O class and nice 19 used on Linux: the
// scan's reads of file metadata wait behind the workload's I/O, and the pages it touches are
// the first to be reused.
const threadModeBackgroundBegin = 0x00010000

var procSetThreadPriority = windows.NewLazySystemDLL("kernel32.dll").NewProc("SetThreadPriority")

// runAtIdlePriority runs fn on a thread of its own in background mode. The goroutine never
// unlocks the thread, so when it ends the runtime retires the thread instead of handing its
// lowered priority to other goroutines.
func runAtIdlePriority(fn func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if r, _, err := procSetThreadPriority.Call(uintptr(windows.CurrentThread()), threadModeBackgroundBegin); r == 0 {
			errc <- fmt.Errorf("set background mode on the scanning thread (scan skipped so it cannot compete with the workload): %w", err)
			return
		}
		fn()
		errc <- nil
	}()
	return <-errc
}

// scanRoot walks one root without following reparse points (symbolic links, junctions,
// mounted folders) and without leaving the root's volume.
func scanRoot(ctx context.Context, root string, s Settings, pace *pacer) (Result, error) {
	start := time.Now()
	rootInfo, err := openInfo(root, true)
	if err != nil {
		return Result{}, fmt.Errorf("scan %s: %w", root, err)
	}
	if rootInfo.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		return Result{}, fmt.Errorf("scan %s: it is a reparse point (link, junction or mounted folder); give the path it points to", root)
	}
	volume := rootInfo.VolumeSerialNumber
	r := Result{Root: root}
	worst := worstFiles{limit: s.WorstFiles}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			if path == root {
				return err
			}
			if !errors.Is(err, fs.ErrNotExist) {
				r.Unreadable++
			}
			return nil
		}
		switch {
		case d.IsDir():
			if path != root && isReparsePoint(d) {
				return fs.SkipDir // another volume, or a link: not this root's files
			}
		case d.Type().IsRegular():
			if err := pace.wait(ctx); err != nil {
				return err
			}
			file, outcome := mapFile(path, volume)
			r.count(file, outcome)
			if outcome == mapped {
				worst.offer(file)
			}
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("scan %s: %w", root, err)
	}
	r.Worst = worst.sorted()
	r.Finished = time.Now()
	r.Duration = r.Finished.Sub(start)
	return r, nil
}

func isReparsePoint(d fs.DirEntry) bool {
	info, err := d.Info()
	if err != nil {
		return true // vanished: nothing to walk
	}
	attrs, ok := info.Sys().(*syscall.Win32FileAttributeData)
	return !ok || attrs.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0
}

// openInfo opens path for its attributes only (no data access, so no sharing conflict with a
// database that holds its files open exclusively, and no access-time update) without following
// a reparse point, and returns what GetFileInformationByHandle says of it.
func openInfo(path string, directory bool) (windows.ByHandleFileInformation, error) {
	h, err := openAttributes(path, directory)
	if err != nil {
		return windows.ByHandleFileInformation{}, err
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	err = windows.GetFileInformationByHandle(h, &info)
	return info, err
}

func openAttributes(path string, directory bool) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return windows.InvalidHandle, err
	}
	flags := uint32(windows.FILE_FLAG_OPEN_REPARSE_POINT)
	if directory {
		flags |= windows.FILE_FLAG_BACKUP_SEMANTICS // needed to open a directory at all
	}
	return windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, flags, 0)
}

// mapFile maps one file the walk saw, checking again on the open handle that it is a regular
// file on the root's volume (a link or another volume swapped in since is skipped).
func mapFile(path string, volume uint32) (FileExtents, fileOutcome) {
	h, err := openAttributes(path, false)
	switch {
	case errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND):
		return FileExtents{}, skipped
	case err != nil:
		return FileExtents{}, unreadable
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return FileExtents{}, unreadable
	}
	const notRegular = windows.FILE_ATTRIBUTE_DIRECTORY | windows.FILE_ATTRIBUTE_REPARSE_POINT | windows.FILE_ATTRIBUTE_DEVICE
	if info.FileAttributes&notRegular != 0 || info.VolumeSerialNumber != volume {
		return FileExtents{}, skipped
	}
	n, err := fiemap.CountFD(int(h), path)
	switch {
	case errors.Is(err, fiemap.ErrUnsupported):
		return FileExtents{}, unsupported
	case err != nil:
		return FileExtents{}, unreadable
	}
	size := int64(info.FileSizeHigh)<<32 | int64(info.FileSizeLow)
	return FileExtents{Path: path, SizeBytes: size, Extents: n}, mapped
}
