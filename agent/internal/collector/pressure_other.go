//go:build !linux

package collector

import "fmt"

// pressureSource: pressure stall information is a Linux interface.
func pressureSource(Options) func(string) (map[stallKey]uint64, error) {
	return func(string) (map[stallKey]uint64, error) {
		return nil, fmt.Errorf("pressure: %w", ErrUnsupported)
	}
}
