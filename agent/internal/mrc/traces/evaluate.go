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

// Key is one page-cache access key, as the kernel program hashes it: the file (superblock
// device, inode) and the page index in it.
type Key struct {
	Dev        uint32
	Ino, Index uint64
}

// Keys draws n accesses from t, as pages of one file.
func Keys(t Trace, n int) []Key {
	out := make([]Key, n)
	for i := range out {
		out[i] = Key{Dev: 1, Ino: 1, Index: t.Next()}
	}
	return out
}

// Hashes are the sampling hashes (mrc.PageKeyHash) of the accesses with every inode number
// XORed with a mask chosen by salt: the same stream (equal keys stay equal, distinct keys
// distinct, pages keep their place in their file, so the exact curve is unchanged) with an
// independent spatial sample, so one trace gives as many independent 1 % samples as salts.
// Salt 0 is the agent's own hash.
func Hashes(keys []Key, salt uint64) []uint64 {
	mask := uint64(0)
	if salt != 0 {
		mask = salt * 0x9e3779b97f4a7c15
	}
	out := make([]uint64, len(keys))
	for i, k := range keys {
		out[i] = mrc.PageKeyHash(k.Dev, k.Ino^mask, k.Index)
	}
	return out
}
