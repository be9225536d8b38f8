//go:build !linux

package proofrun

import (
	"fmt"
	"os"

	"github.com/spindle-io/spindle/agent/internal/accel"
)

// The generator needs O_DIRECT, O_NOFOLLOW, statfs, fadvise, mincore and FIEMAP: Linux only.
func platformSupported() error {
	return fmt.Errorf("proof runs: %w (they run on Linux only)", accel.ErrUnsupported)
}

func createFile(string, bool) (*os.File, error)     { return nil, platformSupported() }
func openFile(string, bool, bool) (*os.File, error) { return nil, platformSupported() }
func fileSystemOf(string) (Device, error)           { return Device{}, platformSupported() }
func dropPages(*os.File) error                      { return platformSupported() }
func countExtents(string) (int, error)              { return 0, platformSupported() }

type residency struct{}

func newResidency(*os.File, int64) (*residency, error)         { return nil, platformSupported() }
func (*residency) resident(int64, int64, []byte) (bool, error) { return false, platformSupported() }
func (*residency) close()                                      {}

func positionalIO(f *os.File) (readAt, writeAt func([]byte, int64) (int, error)) {
	return f.ReadAt, f.WriteAt
}
