//go:build !linux && !windows

package collector

import "fmt"

// diskstatsSource: /proc/diskstats is Linux's, PDH counters Windows'; other systems have neither.
func diskstatsSource(Options) func() ([]diskSample, error) {
	return func() ([]diskSample, error) {
		return nil, fmt.Errorf("diskstats: %w", ErrUnsupported)
	}
}
