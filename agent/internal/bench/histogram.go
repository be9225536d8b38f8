package bench

import (
	"math/bits"
	"time"
)

// histogram is a log-linear latency histogram in nanoseconds: exact below 128 ns, then 64
// buckets per power of two, so any quantile is within 1/128 (0.8 %) of the true value. The
// mean is exact (sum of the recorded values).
type histogram struct {
	counts []uint32 // histogramBuckets long once a value is recorded
	n      int64
	sum    int64 // nanoseconds
}

const (
	histogramSubBits = 6 // 64 sub-buckets per power of two
	histogramMaxBits = 40
	// histogramBuckets covers values below 2^histogramMaxBits ns (about 18 minutes).
	histogramBuckets = (histogramMaxBits-histogramSubBits)*(1<<histogramSubBits) + 2<<histogramSubBits
)

func bucketOf(ns int64) int {
	if ns < 0 {
		ns = 0
	}
	v := uint64(ns)
	if v >= 1<<histogramMaxBits {
		v = 1<<histogramMaxBits - 1
	}
	if v < 2<<histogramSubBits {
		return int(v)
	}
	shift := bits.Len64(v) - (histogramSubBits + 1)
	return shift<<histogramSubBits + int(v>>shift)
}

// bucketMid is the middle of a bucket's range, in nanoseconds.
func bucketMid(index int) float64 {
	if index < 2<<histogramSubBits {
		return float64(index)
	}
	shift := index>>histogramSubBits - 1
	mantissa := index - shift<<histogramSubBits
	low := float64(uint64(mantissa) << shift)
	return low + float64(uint64(1)<<shift)/2
}

func (h *histogram) record(d time.Duration) {
	if h.counts == nil {
		h.counts = make([]uint32, histogramBuckets)
	}
	h.counts[bucketOf(int64(d))]++
	h.n++
	h.sum += int64(d)
}

func (h *histogram) merge(o *histogram) {
	if h.counts == nil && o.counts != nil {
		h.counts = make([]uint32, histogramBuckets)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
}

// mean in seconds; 0 for an empty histogram.
func (h *histogram) mean() float64 {
	if h == nil || h.n == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.n) / 1e9
}

// quantile q (0 < q <= 1) in seconds: the bucket holding the ceil(q·n)-th smallest value.
func (h *histogram) quantile(q float64) float64 {
	if h == nil || h.n == 0 {
		return 0
	}
	if h.counts == nil { // only a sum and a count: the mean is all there is
		return h.mean()
	}
	rank := int64(q*float64(h.n) + 0.999999999)
	if rank < 1 {
		rank = 1
	}
	var seen int64
	for i, c := range h.counts {
		seen += int64(c)
		if seen >= rank {
			return bucketMid(i) / 1e9
		}
	}
	return bucketMid(len(h.counts)-1) / 1e9
}
