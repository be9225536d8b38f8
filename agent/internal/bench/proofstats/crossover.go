// Package proofstats holds the statistics of a proof run: the with/without difference of a
// figure measured in alternating passes (off, on, on, off, repeated), with an interval from the
// variation between passes. docs/gains.md, "Proof runs", explains the method and its checks.
package proofstats

import (
	"errors"
	"fmt"
	"math"
)

// Pass is one measured pass of a figure: its value and whether the features were on.
type Pass struct {
	On    bool
	Value float64
}

// Estimate is the on − off difference of a figure with its interval, in the figure's units.
type Estimate struct {
	Difference float64
	Low, High  float64
	// Pairs is the number of adjacent pass pairs it rests on; DF the degrees of freedom of its t.
	Pairs, DF int
}

// ErrTooFewPairs: no interval can be formed from the passes given.
var ErrTooFewPairs = errors.New("too few pass pairs for an interval")

// Crossover estimates on − off from passes in run order, read as consecutive pairs (1, 2),
// (3, 4), … each holding one off and one on pass: a 2×2 crossover with every pair a subject.
// The difference within a pair, second − first, is ±(effect) + (order effect) + noise: + for
// off-then-on pairs, − for on-then-off. Half the difference of the two orders' mean pair
// differences is the effect, with the order effect (a linear drift across the passes, or a pass
// that follows another being faster) cancelled; the pooled spread of the pair differences within
// each order gives a Student t interval at the two-sided confidence level (e.g. 0.95) with
// pairs − 2 degrees of freedom. When the passes are whole blocks of off, on, on, off, the
// standard error is never below the one the spread of the blocks' own contrasts gives.
//
// minPairVariance floors the pooled variance: figures that are counts (extents of a file) can
// repeat exactly, and a spread of 0 would claim a certainty their rounding does not have; a
// count's rounding alone gives each pair difference at least 1/6 (two uniform errors of 1/12).
func Crossover(passes []Pass, level, minPairVariance float64) (Estimate, error) {
	if len(passes)%2 != 0 {
		return Estimate{}, fmt.Errorf("%d passes: pairs need an even number", len(passes))
	}
	var offFirst, onFirst []float64
	for i := 0; i < len(passes); i += 2 {
		first, second := passes[i], passes[i+1]
		if first.On == second.On {
			return Estimate{}, fmt.Errorf("passes %d and %d have the features in the same state", i+1, i+2)
		}
		if math.IsNaN(first.Value) || math.IsNaN(second.Value) || math.IsInf(first.Value, 0) || math.IsInf(second.Value, 0) {
			return Estimate{}, fmt.Errorf("pass %d or %d has no finite value", i+1, i+2)
		}
		if first.On {
			onFirst = append(onFirst, second.Value-first.Value)
		} else {
			offFirst = append(offFirst, second.Value-first.Value)
		}
	}
	pairs := len(offFirst) + len(onFirst)
	if len(offFirst) == 0 || len(onFirst) == 0 || pairs < 3 {
		return Estimate{Pairs: pairs}, fmt.Errorf("%w: %d off-then-on and %d on-then-off pairs; at least one of each and three in all",
			ErrTooFewPairs, len(offFirst), len(onFirst))
	}
	meanA, ssA := meanAndSquares(offFirst)
	meanB, ssB := meanAndSquares(onFirst)
	df := pairs - 2
	variance := max((ssA+ssB)/float64(df), minPairVariance)
	se := math.Sqrt(variance / 4 * (1/float64(len(offFirst)) + 1/float64(len(onFirst))))
	if blocks, ok := blockContrasts(passes); ok && len(blocks) >= 2 {
		// The pooled spread assumes the pairs independent. Noise that persists from one pass to
		// the next makes the two pairs of a block move against each other, and that spread then
		// understates the block contrast's own; the spread of the block contrasts holds
		// whatever happens inside a block. Use the wider of the two.
		_, squares := meanAndSquares(blocks)
		se = math.Max(se, math.Sqrt(squares/float64(len(blocks)-1)/float64(len(blocks))))
	}
	t := StudentQuantile(1-(1-level)/2, df)
	d := (meanA - meanB) / 2
	return Estimate{Difference: d, Low: d - t*se, High: d + t*se, Pairs: pairs, DF: df}, nil
}

// blockContrasts are the effect of each block (off, on, on, off): half of its off-then-on pair
// difference minus its on-then-off one; ok is false when the passes are not whole such blocks.
func blockContrasts(passes []Pass) (contrasts []float64, ok bool) {
	if len(passes)%4 != 0 {
		return nil, false
	}
	for i := 0; i < len(passes); i += 4 {
		b := passes[i : i+4]
		if b[0].On || !b[1].On || !b[2].On || b[3].On {
			return nil, false
		}
		contrasts = append(contrasts, ((b[1].Value-b[0].Value)-(b[3].Value-b[2].Value))/2)
	}
	return contrasts, true
}

func meanAndSquares(v []float64) (mean, squares float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		squares += (x - mean) * (x - mean)
	}
	return mean, squares
}

// Excludes0 says whether the interval lies wholly on one side of 0: a measurable difference.
func (e Estimate) Excludes0() bool { return e.Low > 0 || e.High < 0 }
