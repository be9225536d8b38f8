package proofrun

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func TestHistogramQuantilesWithinOnePercentOfExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := &histogram{}
	var values []float64
	var sum float64
	for range 100_000 {
		// log-normal around 200 µs, with a tail, like storage latencies
		ns := math.Exp(rng.NormFloat64()*1.2 + math.Log(200e3))
		values = append(values, ns)
		h.record(time.Duration(ns))
		sum += float64(time.Duration(ns))
	}
	sort.Float64s(values)
	for _, q := range []float64{0.5, 0.95, 0.99, 0.999} {
		exact := values[int(math.Ceil(q*float64(len(values))))-1] / 1e9
		got := h.quantile(q)
		if math.Abs(got-exact)/exact > 0.01 {
			t.Errorf("p%v = %v s, exact %v s (off by %.2f %%)", q*100, got, exact, 100*math.Abs(got-exact)/exact)
		}
	}
	if want := sum / 1e9 / float64(len(values)); math.Abs(h.mean()-want) > 1e-12 {
		t.Errorf("mean = %v, want %v", h.mean(), want)
	}
	var merged histogram
	merged.merge(h)
	if merged.quantile(0.99) != h.quantile(0.99) || merged.n != h.n {
		t.Error("merge changed the distribution")
	}
}

func TestHistogramBucketsAreContiguousAndOrdered(t *testing.T) {
	previous := -1
	for v := int64(0); v < 1<<20; v += 1 + v/300 {
		b := bucketOf(v)
		if b < previous || b > previous+1 && previous >= 0 && v < 128 {
			t.Fatalf("bucketOf(%d) = %d after %d", v, b, previous)
		}
		if mid := bucketMid(b); math.Abs(mid-float64(v)) > float64(v)/64+1 {
			t.Fatalf("bucketMid(bucketOf(%d)) = %v", v, mid)
		}
		previous = b
	}
	if bucketOf(math.MaxInt64) >= histogramBuckets {
		t.Fatal("largest value overflows the buckets")
	}
}
