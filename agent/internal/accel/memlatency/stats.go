// Package memlatency measures what one 4 KiB read served from the page cache costs on this
// host, so the console can weigh the storage reads the read cache saved against the memory
// reads that replaced them (docs/metrics.md: spindle.read_cache.memory_read_latency).
package memlatency

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// TrimFraction is the share of samples dropped at each end before averaging: on a busy host a
// few reads are preempted or interrupted, and one such read outweighs thousands of quick ones.
const TrimFraction = 0.05

// Measurement is one calibration's result.
type Measurement struct {
	// Mean is the trimmed mean time of one read of a resident page.
	Mean time.Duration
	// Samples is how many timed reads Mean averages (those left after trimming).
	Samples int
	// At is when the calibration finished.
	At time.Time
}

// TrimmedMean sorts samples (in place) and averages them without the lowest and highest
// floor(len×trim) of them. It returns the mean and how many samples it averaged.
func TrimmedMean(samples []time.Duration, trim float64) (time.Duration, int, error) {
	if trim < 0 || trim >= 0.5 {
		return 0, 0, fmt.Errorf("trim fraction %v must be in [0, 0.5)", trim)
	}
	drop := int(float64(len(samples)) * trim)
	kept := len(samples) - 2*drop
	if kept <= 0 {
		return 0, 0, errors.New("no samples to average")
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, d := range samples[drop : len(samples)-drop] {
		sum += d
	}
	return sum / time.Duration(kept), kept, nil
}
