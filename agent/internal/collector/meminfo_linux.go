package collector

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

func meminfoSource(opts Options) func() (memoryBytes, error) {
	path := filepath.Join(opts.ProcPath, "meminfo")
	return func() (memoryBytes, error) {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return memoryBytes{}, fmt.Errorf("meminfo: %s is missing (is proc_path right?): %w", path, ErrUnsupported)
		}
		if err != nil {
			return memoryBytes{}, fmt.Errorf("meminfo: %w", err)
		}
		defer f.Close()
		values, err := parseMeminfo(f)
		if err != nil {
			return memoryBytes{}, err
		}
		return memoryFromMeminfo(values)
	}
}
