//go:build !linux

package collector

import "fmt"

// diskstatsSource: /proc/diskstats exists on Linux only; Windows gets PDH counters later.
func diskstatsSource(Options) func() ([]diskSample, error) {
	return func() ([]diskSample, error) {
		return nil, fmt.Errorf("diskstats: %w", ErrUnsupported)
	}
}
