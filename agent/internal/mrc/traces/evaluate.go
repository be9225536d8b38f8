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
	exact, err := Exact(hashes, keys)
	if err != nil {
		return Result{}, err
	}
	estimate, err := Sampled(hashes, rate, maxKeys, adjust)
	if err != nil {
		return Result{}, err
	}
	return Result{Estimate: estimate, Exact: exact, MeanAbsoluteError: mrc.MeanAbsoluteError(estimate, exact)}, nil
}

// Exact is the exact LRU curve of the accesses: the estimator at rate 1 with room for every key.
func Exact(hashes []uint64, keys int) (mrc.Curve, error) {
	e, err := mrc.New(mrc.Settings{KeyBytes: KeyBytes, MaxKeys: keys + 1, Rate: 1})
	if err != nil {
		return mrc.Curve{}, err
	}
	for _, h := range hashes {
		e.Access(h)
	}
	c, _ := e.Curve(0)
	return c, nil
}

// Sampled is the curve a sampled estimator (rate, maxKeys) builds from the accesses, as the
// agent builds it; adjust applies SHARDS_adj with the true access count.
func Sampled(hashes []uint64, rate float64, maxKeys int, adjust bool) (mrc.Curve, error) {
	e, err := mrc.New(mrc.Settings{KeyBytes: KeyBytes, MaxKeys: maxKeys, Rate: rate})
	if err != nil {
		return mrc.Curve{}, err
	}
	for _, h := range hashes {
		e.Access(h)
	}
	var total uint64
	if adjust {
		total = uint64(len(hashes))
	}
	c, _ := e.Curve(total)
	return c, nil
}

// Resalt maps every hash through a bijection chosen by salt: the same stream (same exact
// curve, since equal keys stay equal and distinct keys stay distinct) with an independent
// spatial sample, so one trace gives as many independent 1 % samples as salts.
// Salt 0 is the agent's own hash.
func Resalt(hashes []uint64, salt uint64) []uint64 {
	if salt == 0 {
		return hashes
	}
	out := make([]uint64, len(hashes))
	for i, h := range hashes {
		// splitmix64's finaliser of h plus an odd multiple of the salt: a bijection of h.
		x := h + salt*0x9e3779b97f4a7c15
		x ^= x >> 30
		x *= 0xbf58476d1ce4e5b9
		x ^= x >> 27
		x *= 0x94d049bb133111eb
		x ^= x >> 31
		out[i] = x
	}
	return out
}

// Hashes draws n accesses from t and returns their sampling hashes.
func Hashes(t Trace, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = mrc.PageKeyHash(1, 1, t.Next())
	}
	return out
}
