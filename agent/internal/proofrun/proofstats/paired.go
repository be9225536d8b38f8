package proofstats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Block is one block of an interleaved run: the figure measured once with the control arm and
// once with the treated arm, both inside the same block (in a random order), so what drifts
// over the run (other load on the machine, the database growing) moves both alike.
type Block struct {
	Control, Treated float64
}

// PairedEstimate is the treated − control difference of a figure, the mean over blocks of each
// block's own difference, with two intervals over the blocks at the same confidence: a
// percentile bootstrap (blocks resampled with replacement, each block's pair kept together)
// and a Student t. With few blocks the bootstrap's percentiles are too narrow (they ignore
// that the spread itself is estimated), so the t interval is stated beside it.
type PairedEstimate struct {
	Difference                  float64
	BootstrapLow, BootstrapHigh float64
	StudentLow, StudentHigh     float64
	Blocks, Resamples           int
}

// ErrTooFewBlocks: an interval over blocks needs at least MinPairedBlocks of them.
var ErrTooFewBlocks = errors.New("too few blocks for an interval")

// MinPairedBlocks is the fewest blocks an interval is formed from: with two, the bootstrap has
// three distinct resample means and the t has one degree of freedom.
const MinPairedBlocks = 3

// PairedBlocks estimates treated − control over blocks at the two-sided confidence level (e.g.
// 0.95), with resamples bootstrap resamples drawn from a generator seeded with seed: the same
// blocks and seed give the same interval. Values must be finite (pass logarithms for ratios).
func PairedBlocks(blocks []Block, level float64, resamples int, seed uint64) (PairedEstimate, error) {
	if len(blocks) < MinPairedBlocks {
		return PairedEstimate{Blocks: len(blocks)}, fmt.Errorf("%w: %d, need at least %d", ErrTooFewBlocks, len(blocks), MinPairedBlocks)
	}
	if level <= 0 || level >= 1 || resamples < 100 {
		return PairedEstimate{}, fmt.Errorf("confidence %g must be between 0 and 1 and resamples %d at least 100", level, resamples)
	}
	// The pairing: each block contributes its own difference, and only differences are
	// resampled, so the control of one block is never set against the treated of another.
	diffs := make([]float64, len(blocks))
	for i, b := range blocks {
		d := b.Treated - b.Control
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return PairedEstimate{}, fmt.Errorf("block %d has no finite value", i+1)
		}
		diffs[i] = d
	}
	mean, squares := meanAndSquares(diffs)
	n := len(diffs)
	rng := rand.New(rand.NewPCG(seed, 0x5eed_b10c))
	means := make([]float64, resamples)
	for r := range means {
		var sum float64
		for range n {
			sum += diffs[rng.IntN(n)]
		}
		means[r] = sum / float64(n)
	}
	slices.Sort(means)
	tail := (1 - level) / 2
	half := StudentQuantile(1-tail, n-1) * math.Sqrt(squares/float64(n-1)/float64(n))
	return PairedEstimate{
		Difference: mean, BootstrapLow: quantile(means, tail), BootstrapHigh: quantile(means, 1-tail),
		StudentLow: mean - half, StudentHigh: mean + half, Blocks: n, Resamples: resamples,
	}, nil
}

// quantile is the p-quantile of sorted values, linear between order statistics.
func quantile(sorted []float64, p float64) float64 {
	pos := p * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// BootstrapExcludes0 says whether the bootstrap interval lies wholly on one side of 0.
func (e PairedEstimate) BootstrapExcludes0() bool { return e.BootstrapLow > 0 || e.BootstrapHigh < 0 }

// StudentExcludes0 says whether the t interval lies wholly on one side of 0.
func (e PairedEstimate) StudentExcludes0() bool { return e.StudentLow > 0 || e.StudentHigh < 0 }
