// Package blocklatency reads the block I/O latency histograms: a log2 histogram per device and
// operation of the time from issue to the device (block:block_rq_issue) to completion
// (block:block_rq_complete), aggregated in the kernel by the shared block programs (blockio).
package blocklatency

import (
	"math"

	"github.com/spindle-io/spindle/agent/internal/bpf/blockio"
)

// Slots is the number of histogram slots (LATENCY_SLOTS in blockio.bpf.c).
const Slots = 28

// BoundsMicros are the upper bounds of slots 0..Slots-2 in microseconds: 1, 2, 4, … 2^26
// (67 s). A slot counts latencies above the previous bound up to and including its own; the
// last slot counts everything above 2^26 us. These are OTLP explicit bucket boundaries as is.
func BoundsMicros() []float64 {
	bounds := make([]float64, Slots-1)
	for i := range bounds {
		bounds[i] = math.Ldexp(1, i)
	}
	return bounds
}

// Key is one histogram: a whole disk and an operation.
type Key = blockio.DiskOp

// Histogram is cumulative since the program was loaded, summed over CPUs.
type Histogram struct {
	Counts   [Slots]uint64
	SumNanos uint64
}

// Count is the number of completed I/Os.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Sub returns h minus an earlier reading of the same histogram.
func (h Histogram) Sub(earlier Histogram) Histogram {
	d := Histogram{SumNanos: h.SumNanos - earlier.SumNanos}
	for i := range h.Counts {
		d.Counts[i] = h.Counts[i] - earlier.Counts[i]
	}
	return d
}
