package collector

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// pressureSource reads <proc>/pressure/<resource>. The files are missing on kernels before
// 4.20, without CONFIG_PSI, or booted with psi=0 (some distributions build it disabled by
// default and need psi=1): that is a missing capability, not a failure.
func pressureSource(opts Options) func(resource string) (map[stallKey]uint64, error) {
	return func(resource string) (map[stallKey]uint64, error) {
		path := filepath.Join(opts.ProcPath, "pressure", resource)
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is missing: pressure stall information needs Linux 4.20+ with CONFIG_PSI (add psi=1 to the kernel command line where it is built disabled)", ErrUnsupported, path)
		}
		if err != nil {
			return nil, fmt.Errorf("pressure: %w", err)
		}
		defer f.Close()
		totals, err := parsePressure(resource, f)
		if errors.Is(err, unix.EOPNOTSUPP) {
			return nil, fmt.Errorf("%w: %s: PSI is disabled (boot with psi=1)", ErrUnsupported, path)
		}
		return totals, err
	}
}
