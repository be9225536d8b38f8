package writeopt

import (
	"errors"
	"fmt"
	"os"

	"github.com/spindle-io/spindle/agent/internal/fiemap"
)

// CountExtents returns the fragments of a file as filefrag counts them, after syncing it so
// that delayed allocation is settled (the feature counts right after its own writes). An empty
// file has 0.
func CountExtents(path string) (int, error) {
	f, err := os.Open(path)
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
