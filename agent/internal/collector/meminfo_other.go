//go:build !linux && !windows

package collector

import "fmt"

// meminfoSource: /proc/meminfo is Linux's, the Memory counters Windows'.
func meminfoSource(Options) func() (memoryBytes, error) {
	return func() (memoryBytes, error) {
		return memoryBytes{}, fmt.Errorf("meminfo: %w", ErrUnsupported)
	}
}
