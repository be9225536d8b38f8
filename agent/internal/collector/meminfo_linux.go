package collector

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

func meminfoSource(opts Options) func() (map[string]uint64, error) {
	path := filepath.Join(opts.ProcPath, "meminfo")
	return func() (map[string]uint64, error) {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("meminfo: %s is missing (is proc_path right?): %w", path, ErrUnsupported)
		}
		if err != nil {
			return nil, fmt.Errorf("meminfo: %w", err)
		}
		defer f.Close()
		return parseMeminfo(f)
	}
}
