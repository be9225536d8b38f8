//go:build !linux

package collector

import "fmt"

// meminfoSource: /proc/meminfo exists on Linux only; Windows gets its memory source later.
func meminfoSource(Options) func() (map[string]uint64, error) {
	return func() (map[string]uint64, error) {
		return nil, fmt.Errorf("meminfo: %w", ErrUnsupported)
	}
}
