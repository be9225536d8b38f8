package wininstall

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// removeTree deletes dir and everything in it with DeleteFile and RemoveDirectory. os.RemoveAll
// deletes through FileDispositionInformationEx, which Wine 8 does not implement ("Invalid
// function"), and the plain calls do the same job on Windows. A missing dir is not an error.
func removeTree(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entry.IsDir() {
			dirs = append(dirs, path)
			return nil
		}
		return deleteFile(path)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- { // deepest first
		name, err := windows.UTF16PtrFromString(dirs[i])
		if err != nil {
			return err
		}
		if err := windows.RemoveDirectory(name); err != nil {
			return fmt.Errorf("remove %s: %w", dirs[i], err)
		}
	}
	return nil
}

func deleteFile(path string) error {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	err = windows.DeleteFile(name)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		// A read-only file: clear the attribute and try once more.
		_ = os.Chmod(path, 0o600)
		err = windows.DeleteFile(name)
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}
