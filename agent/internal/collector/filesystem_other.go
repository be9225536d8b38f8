//go:build !linux

package collector

import "fmt"

// filesystemSource: mountinfo and statfs are Linux's; Windows gets GetDiskFreeSpaceEx later.
func filesystemSource(Options) (func() ([]mount, error), func(string) (space, error)) {
	unsupported := func() ([]mount, error) { return nil, fmt.Errorf("filesystem: %w", ErrUnsupported) }
	return unsupported, func(string) (space, error) { return space{}, fmt.Errorf("filesystem: %w", ErrUnsupported) }
}
