package writeopt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// fileStandardInfo is FILE_STANDARD_INFO.
type fileStandardInfo struct {
	AllocationSize int64
	EndOfFile      int64
	NumberOfLinks  uint32
	DeletePending  uint8
	Directory      uint8
	_              [2]byte
}

func standardInfo(h windows.Handle) (fileStandardInfo, error) {
	var info fileStandardInfo
	err := windows.GetFileInformationByHandleEx(h, windows.FileStandardInfo, (*byte)(unsafe.Pointer(&info)),
		uint32(unsafe.Sizeof(info)))
	return info, err
}

// preserveWriteTime stops operations through h from updating the file's last-write time
// (SetFileTime with 0xFFFFFFFF): reserving space changes no data.
func preserveWriteTime(h windows.Handle) error {
	keep := windows.Filetime{LowDateTime: 0xFFFFFFFF, HighDateTime: 0xFFFFFFFF}
	return windows.SetFileTime(h, nil, nil, &keep)
}

// preallocate reserves the next window past the end of the file when its size comes within half
// a window of what is reserved (limits size the window), with SetFileInformationByHandle
// (FileAllocationInfo): the allocation grows, the end of file does not. NTFS gives space
// allocated past the end back when the file's last handle closes, so the feature keeps an
// attributes-only handle open (g.hold: it takes part in no sharing check, so it blocks no other
// open, rename or delete) until the file goes idle (trimReservation closes it). It returns the
// bytes newly allocated.
func preallocate(path string, g *growth, limits windowLimits, now time.Time) (reservedBytes int64, err error) {
	f, _, err := safeopen.Open(path, safeopen.Write, safeopen.Options{})
	if errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
		// Its writer opened it without sharing writes (as SQL Server opens its files): nobody
		// else may reserve space for it, and it is not this feature's to fight over.
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := windows.Handle(f.Fd())
	before, err := standardInfo(h)
	if err != nil {
		return 0, fmt.Errorf("preallocate %s: %w", path, err)
	}
	switch {
	case before.EndOfFile < g.lastSize:
		g.reservedEnd, g.last = 0, lastWindow{} // truncated: starts over from its first window
	case g.trimmed && before.EndOfFile == g.lastSize:
		return 0, nil
	}
	g.trimmed, g.lastSize = false, before.EndOfFile
	if !limits.due(g.last, before.EndOfFile, g.reservedEnd) {
		return 0, nil
	}
	available, err := freeBytes(filepath.Dir(path))
	if err != nil {
		return 0, fmt.Errorf("preallocate %s: free space: %w", path, err)
	}
	start := max(before.EndOfFile, g.reservedEnd, before.AllocationSize)
	window := limits.nextWindow(g.last, before.EndOfFile, start, now, available)
	if window == 0 {
		return 0, nil
	}
	if err := preserveWriteTime(h); err != nil {
		return 0, fmt.Errorf("preallocate %s: keep its write time: %w", path, err)
	}
	if g.hold == nil {
		// Held before the allocation grows, so no close of the writer's in between gives it back.
		if g.hold, err = openHold(path); err != nil {
			return 0, fmt.Errorf("preallocate %s: %w", path, err)
		}
	}
	allocation := start + window
	if err := windows.SetFileInformationByHandle(h, windows.FileAllocationInfo, (*byte)(unsafe.Pointer(&allocation)), 8); err != nil {
		if allocationRefused(err) {
			g.unsupported = true
			return 0, fmt.Errorf("preallocate %s: %w: the file system refuses FileAllocationInfo (%v)", path, ErrUnsupported, err)
		}
		return 0, fmt.Errorf("preallocate %s: %w", path, err)
	}
	g.reservedEnd = allocation
	g.last = lastWindow{bytes: window, startSize: before.EndOfFile, at: now}
	after, err := standardInfo(h)
	if err != nil {
		return 0, err
	}
	return max(0, after.AllocationSize-before.AllocationSize), nil
}

// allocationRefused: the file system (or Wine, which does not implement FileAllocationInfo)
// cannot reserve space this way at all, as opposed to failing for this file now.
func allocationRefused(err error) bool {
	return errors.Is(err, windows.ERROR_INVALID_PARAMETER) || errors.Is(err, windows.ERROR_NOT_SUPPORTED) ||
		errors.Is(err, windows.ERROR_INVALID_FUNCTION) || errors.Is(err, windows.ERROR_CALL_NOT_IMPLEMENTED)
}

// Probe says whether preallocation and defragmentation work on the volume holding dir (the
// agent's state directory), for the capability report: a scratch file there gets 1 MiB
// reserved past its end, and the volume is asked for its bitmap.
func Probe(dir string) (preallocation, defragmentation error) {
	scratch, err := os.CreateTemp(dir, ".spindle-prealloc-probe-*")
	if err != nil {
		preallocation = fmt.Errorf("create a scratch file in %s: %w", dir, err)
	} else {
		size := int64(1 << 20)
		err := windows.SetFileInformationByHandle(windows.Handle(scratch.Fd()), windows.FileAllocationInfo,
			(*byte)(unsafe.Pointer(&size)), 8)
		if err != nil {
			preallocation = fmt.Errorf("%w: the volume of %s refuses FileAllocationInfo (%v)", ErrUnsupported, dir, err)
		}
		scratch.Close()
		_ = os.Remove(scratch.Name())
	}
	return preallocation, checkDefragSupported(dir)
}

// openHold opens path with FILE_READ_ATTRIBUTES only (no reparse point followed).
func openHold(path string) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(name, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, fmt.Errorf("hold %s open: %w", path, err)
	}
	return os.NewFile(uintptr(h), path), nil
}

// trimReservation lets go of the file: the agent's handle closes, and when no one else has it
// open the file system gives the allocation past the end back (NTFS does so at the last close).
// No truncate is ever issued: shrinking the allocation below an append that raced it would cut
// data. A file still open elsewhere keeps its reservation until its writer closes it (then 0
// bytes are freed now; the agent holds nothing more and does not retry).
func trimReservation(path string, g *growth) (size, freedBytes int64, err error) {
	if g.hold == nil {
		return g.lastSize, 0, nil // nothing held: nothing of the agent's to give back
	}
	before, err := standardInfo(windows.Handle(g.hold.(*os.File).Fd()))
	g.closeHold()
	if err != nil {
		return 0, 0, fmt.Errorf("trim the preallocation of %s: %w", path, err)
	}
	check, err := openHold(path)
	if err != nil {
		if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
			return 0, 0, os.ErrNotExist
		}
		return 0, 0, err
	}
	after, err := standardInfo(windows.Handle(check.Fd()))
	check.Close()
	if err != nil {
		return 0, 0, fmt.Errorf("trim the preallocation of %s: %w", path, err)
	}
	return after.EndOfFile, max(0, before.AllocationSize-after.AllocationSize), nil
}

// freeBytes is the space the agent may still allocate on dir's volume.
func freeBytes(dir string) (int64, error) {
	name, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var available, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(name, &available, &total, &free); err != nil {
		return 0, err
	}
	return int64(available), nil
}
