package traces

import (
	"testing"

	"github.com/spindle-io/spindle/agent/internal/mrc"
)

// The curves a 1 % sample builds must stay close to the exact LRU curves on every synthetic
// shape. The traces are small enough for a unit test (the full-size run with its figures is
// docs/benchmarks.md's). Bounds: 0.01 for the shapes without a skewed head, which still fails a
// wrong scaling, a biased hash or a broken stack distance by a wide margin; Zipf's few very hot
// keys are in or out of a 1 % sample by chance, so its curves vary more from one key layout to
// the next (docs/benchmarks.md gives the spread) and get 0.04.
func TestSampledCurvesMatchExactLRU(t *testing.T) {
	const keys, accesses = 200000, 2000000
	for _, c := range []struct {
		trace Trace
		bound float64
	}{
		{Uniform(keys, 1), 0.01},
		{Zipf(keys, 0.8, 2), 0.04},
		{Zipf(keys, 1.2, 3), 0.04},
		{ScanHot(20000, keys, 0.3, 4), 0.01},
		{Loop(keys / 2), 0.01},
	} {
		tr := c.trace
		r, err := Evaluate(Hashes(tr, accesses), tr.Keys, 0.01, mrc.DefaultMaxKeys, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: MAE %.4f at rate %.4f over %d sampled accesses", tr.Name, r.MeanAbsoluteError, r.Estimate.SampleRate, r.Estimate.SampledAccesses)
		if !(r.MeanAbsoluteError <= c.bound) {
			t.Errorf("%s: mean absolute error %.4f, bound %.3f", tr.Name, r.MeanAbsoluteError, c.bound)
		}
	}
}
