package mrc

import (
	"math"
	"sort"
)

// At is the curve's hit ratio for a cache of sizeBytes: the value at the largest size not above
// it, the last value past the end, and false below the first size (the sample cannot tell).
func (c Curve) At(sizeBytes uint64) (float64, bool) {
	i := sort.Search(len(c.SizesBytes), func(i int) bool { return c.SizesBytes[i] > sizeBytes })
	if i == 0 {
		return 0, false
	}
	return c.HitRatios[i-1], true
}

// MeanAbsoluteError is the mean of |estimate − exact| over the exact curve's sizes that the
// estimate covers (from its first size, 1/rate keys, on): the measure of docs/benchmarks.md.
// NaN when they share no size.
func MeanAbsoluteError(estimate, exact Curve) float64 {
	sum, n := 0.0, 0
	for i, size := range exact.SizesBytes {
		if v, ok := estimate.At(size); ok {
			d := v - exact.HitRatios[i]
			if d < 0 {
				d = -d
			}
			sum += d
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// MeanAbsoluteErrorLinear is the same comparison at n cache sizes evenly spaced from the
// exact curve's end / n to its end (cached sizes an operator would consider, each size range
// weighted by its width), the way SHARDS' published errors are measured; docs/benchmarks.md
// gives it beside the log-grid figure. Sizes below the estimate's first point are skipped.
func MeanAbsoluteErrorLinear(estimate, exact Curve, n int) float64 {
	if len(exact.SizesBytes) == 0 || n <= 0 {
		return math.NaN()
	}
	last := exact.SizesBytes[len(exact.SizesBytes)-1]
	sum, counted := 0.0, 0
	for i := 1; i <= n; i++ {
		size := last / uint64(n) * uint64(i)
		v, ok := estimate.At(size)
		want, wok := exact.At(size)
		if !ok || !wok {
			continue
		}
		sum += math.Abs(v - want)
		counted++
	}
	if counted == 0 {
		return math.NaN()
	}
	return sum / float64(counted)
}
