//go:build !linux && !windows

package fiemap

import "fmt"

// CountFD: FIEMAP is a Linux ioctl, FSCTL_GET_RETRIEVAL_POINTERS a Windows one.
func CountFD(_ int, name string) (int, error) {
	return 0, fmt.Errorf("%s: %w", name, ErrUnsupported)
}

// CountFDSynced: FIEMAP is a Linux ioctl.
func CountFDSynced(fd int, name string) (int, error) { return CountFD(fd, name) }

// CountFDSyncedTo: FIEMAP is a Linux ioctl.
func CountFDSyncedTo(fd int, name string, _ int64) (int, error) { return CountFD(fd, name) }
