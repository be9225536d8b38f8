package safeopen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// Options narrow what Open accepts beyond "a regular file reached without a reparse point".
type Options struct {
	// Volume, when not zero, is the serial number of the volume the file must be on.
	Volume uint32
	// Sequential opens with FILE_FLAG_SEQUENTIAL_SCAN: the cache manager reads ahead in large
	// requests (the read cache's prefetch).
	Sequential bool
}

// Info is what Open learnt of the file from its handle.
type Info struct {
	Size   int64
	Volume uint32
	Links  uint32
}

// Open opens path without following a reparse point (symbolic link, junction, mounted folder)
// in any component, sharing read, write and delete so it never blocks the files' owners, then
// checks that it is a regular disk file, on opts.Volume if set, and for Write and ReadWrite that
// it has exactly one link. A reparse point as the last component is seen on the handle itself
// (FILE_FLAG_OPEN_REPARSE_POINT opens the link, not its target); one in a directory above makes
// the handle's final path differ from the path asked for.
func Open(path string, access Access, opts Options) (*os.File, Info, error) {
	desired := uint32(windows.GENERIC_READ)
	switch access {
	case Write:
		desired = windows.GENERIC_WRITE | windows.FILE_READ_ATTRIBUTES
	case ReadWrite:
		desired = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	flags := uint32(windows.FILE_FLAG_OPEN_REPARSE_POINT)
	if opts.Sequential {
		flags |= windows.FILE_FLAG_SEQUENTIAL_SCAN
	}
	absolute, err := filepath.Abs(path)
	if err != nil {
		return nil, Info{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	name, err := windows.UTF16PtrFromString(absolute)
	if err != nil {
		return nil, Info{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(name, desired,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, flags, 0)
	if err != nil {
		return nil, Info{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	info, err := check(h, absolute, access, opts)
	if err != nil {
		windows.CloseHandle(h)
		return nil, Info{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), info, nil
}

func check(h windows.Handle, absolute string, access Access, opts Options) (Info, error) {
	var fi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &fi); err != nil {
		return Info{}, err
	}
	if fi.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		return Info{}, ErrSymlink
	}
	if t, _ := windows.GetFileType(h); t != windows.FILE_TYPE_DISK || fi.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0 {
		return Info{}, ErrNotRegular
	}
	if opts.Volume != 0 && fi.VolumeSerialNumber != opts.Volume {
		return Info{}, ErrOtherDevice
	}
	if access != Read && fi.NumberOfLinks != 1 {
		return Info{}, ErrHardLinked
	}
	if final, err := finalPath(h); err == nil && !samePath(final, absolute) {
		return Info{}, ErrSymlink
	}
	return Info{Size: int64(fi.FileSizeHigh)<<32 | int64(fi.FileSizeLow), Volume: fi.VolumeSerialNumber,
		Links: fi.NumberOfLinks}, nil
}

// volumeNameDOS (GetFinalPathNameByHandle): the path with a drive letter, \\?\C:\…
const volumeNameDOS = 0

// finalPath is the path the file system resolved the handle to, without the \\?\ prefix.
func finalPath(h windows.Handle) (string, error) {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), volumeNameDOS)
	if err != nil {
		return "", err
	}
	if int(n) > len(buf) {
		return "", fmt.Errorf("final path of %d characters", n)
	}
	final := windows.UTF16ToString(buf[:n])
	if rest, ok := strings.CutPrefix(final, `\\?\UNC\`); ok {
		return `\\` + rest, nil
	}
	return strings.TrimPrefix(final, `\\?\`), nil
}

// samePath compares two absolute paths as Windows does (case-insensitively), after expanding
// 8.3 short names in the one asked for, which name the same file without any link.
func samePath(final, asked string) bool {
	if strings.EqualFold(final, asked) {
		return true
	}
	if p, err := windows.UTF16PtrFromString(asked); err == nil {
		buf := make([]uint16, windows.MAX_LONG_PATH)
		if n, err := windows.GetLongPathName(p, &buf[0], uint32(len(buf))); err == nil && int(n) <= len(buf) {
			return strings.EqualFold(final, windows.UTF16ToString(buf[:n]))
		}
	}
	return false
}
