//go:build linux || windows

package writeopt

import (
	"errors"
	"fmt"
	"os"

	"github.com/spindle-io/spindle/agent/internal/fiemap"
	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// CountExtents returns the fragments of a file as filefrag counts them, after syncing it so
// that delayed allocation is settled (the feature counts right after its own writes). An empty
// file has 0.
func CountExtents(path string) (int, error) {
	f, _, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return countExtents(f)
}

func countExtents(f *os.File) (int, error) {
	n, err := fiemap.CountFDSynced(int(f.Fd()), f.Name())
	if errors.Is(err, fiemap.ErrUnsupported) {
		return 0, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return n, err
}

// sizeAndExtents returns a file's size and its fragments up to EOF (space reserved past EOF by
// preallocation is not fragmentation), counted after a sync like CountExtents.
func sizeAndExtents(path string) (size int64, extents int, err error) {
	f, _, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if !info.Mode().IsRegular() {
		return 0, 0, fmt.Errorf("%s: %w", path, safeopen.ErrNotRegular)
	}
	extents, err = fiemap.CountFDSyncedTo(int(f.Fd()), f.Name(), info.Size())
	if errors.Is(err, fiemap.ErrUnsupported) {
		return 0, 0, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return info.Size(), extents, err
}
