// Package traces generates synthetic access streams of known structure for checking miss-ratio
// curves against an exact LRU simulation: the shapes docs/benchmarks.md names (uniform, Zipf,
// scans mixed with a hot set, loops larger than the cache). Each is deterministic for a seed.
package traces

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Trace yields key numbers; Keys is how many distinct keys it can produce at most.
type Trace struct {
	Name string
	Keys int
	Next func() uint64
}

// Uniform picks each access uniformly among keys.
func Uniform(keys int, seed uint64) Trace {
	r := rand.New(rand.NewPCG(seed, 1))
	return Trace{Name: "uniform", Keys: keys, Next: func() uint64 { return uint64(r.IntN(keys)) }}
}

// Zipf picks key k (0-based) with probability proportional to 1/(k+1)^alpha, by inverting the
// cumulative distribution (math/rand's Zipf needs alpha > 1; 0.8 is a case the issue asks for).
// Keys are shuffled so popularity is not correlated with key number.
func Zipf(keys int, alpha float64, seed uint64) Trace {
	r := rand.New(rand.NewPCG(seed, 2))
	cdf := make([]float64, keys)
	total := 0.0
	for k := range keys {
		total += 1 / math.Pow(float64(k+1), alpha)
		cdf[k] = total
	}
	perm := r.Perm(keys)
	return Trace{Name: "zipf", Keys: keys, Next: func() uint64 {
		u := r.Float64() * total
		return uint64(perm[sort.SearchFloat64s(cdf, u)])
	}}
}

// ScanHot reads a hot set of hotKeys uniformly, and with probability scanShare reads instead the
// next key of a sequential scan over scanKeys keys (wrapping), as a backup or report passing by.
func ScanHot(hotKeys, scanKeys int, scanShare float64, seed uint64) Trace {
	r := rand.New(rand.NewPCG(seed, 3))
	next := 0
	return Trace{Name: "scan+hot", Keys: hotKeys + scanKeys, Next: func() uint64 {
		if r.Float64() < scanShare {
			next = (next + 1) % scanKeys
			return uint64(hotKeys + next)
		}
		return uint64(r.IntN(hotKeys))
	}}
}

// Loop reads keys 0..keys-1 in order, over and over: LRU gets no hit until the cache holds
// them all.
func Loop(keys int) Trace {
	next := -1
	return Trace{Name: "loop", Keys: keys, Next: func() uint64 {
		next = (next + 1) % keys
		return uint64(next)
	}}
}
