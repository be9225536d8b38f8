package traces

import "github.com/spindle-io/spindle/agent/internal/mrc"

// KeyBytes is the size a synthetic key stands for: one 4 KiB page.
const KeyBytes = 4096

// Result compares a sampled curve with the exact one over the same accesses.
type Result struct {
	Estimate, Exact   mrc.Curve
	MeanAbsoluteError float64
}

// Evaluate runs accesses of t through a sampled estimator (rate, maxKeys) and through an exact
// LRU (every key, rate 1) and compares their curves. Keys hash as pages of one file, the way
// the kernel program hashes them. adjust applies SHARDS_adj with the true access count.
func Evaluate(hashes []uint64, keys int, rate float64, maxKeys int, adjust bool) (Result, error) {
	est, err := mrc.New(mrc.Settings{KeyBytes: KeyBytes, MaxKeys: maxKeys, Rate: rate})
	if err != nil {
		return Result{}, err
	}
	exact, err := mrc.New(mrc.Settings{KeyBytes: KeyBytes, MaxKeys: keys + 1, Rate: 1})
	if err != nil {
		return Result{}, err
	}
	for _, h := range hashes {
		est.Access(h)
		exact.Access(h)
	}
	var total uint64
	if adjust {
		total = uint64(len(hashes))
	}
	var r Result
	r.Estimate, _ = est.Curve(total)
	r.Exact, _ = exact.Curve(0)
	r.MeanAbsoluteError = mrc.MeanAbsoluteError(r.Estimate, r.Exact)
	return r, nil
}

// Hashes draws n accesses from t and returns their sampling hashes.
func Hashes(t Trace, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = mrc.PageKeyHash(1, 1, t.Next())
	}
	return out
}
