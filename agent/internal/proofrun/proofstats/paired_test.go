package proofstats

import (
	"errors"
	"math"
	"testing"
)

// Differences 1, 2, 3, 4, 5: mean 3, squares 10, SE √(10 / 4 / 5) = 0.7071, t(0.975, 4) =
// 2.7764: 3 ± 1.963. Every bootstrap resample mean lies between 1 and 5, and the percentile
// interval sits about the mean, inside the t one (the bootstrap is the narrower with 5 blocks).
func TestPairedBlocksKnownInput(t *testing.T) {
	blocks := []Block{{10, 11}, {10, 12}, {20, 23}, {5, 9}, {7, 12}}
	est, err := PairedBlocks(blocks, 0.95, 4000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !near(est.Difference, 3) || !near(est.StudentLow, 1.037) || !near(est.StudentHigh, 4.963) || est.Blocks != 5 {
		t.Fatalf("estimate %+v, want 3 with t interval [1.037, 4.963] over 5 blocks", est)
	}
	if est.BootstrapLow < 1.5 || est.BootstrapLow > 2.5 || est.BootstrapHigh < 3.5 || est.BootstrapHigh > 4.5 {
		t.Fatalf("bootstrap interval [%g, %g], want about 3 ± 1.2 (the resample means' 2.5 and 97.5 percentiles)",
			est.BootstrapLow, est.BootstrapHigh)
	}
	again, _ := PairedBlocks(blocks, 0.95, 4000, 1)
	if again != est {
		t.Fatalf("the same blocks and seed gave %+v then %+v", est, again)
	}
	if !est.BootstrapExcludes0() || !est.StudentExcludes0() {
		t.Fatal("intervals above 0 are a measurable difference")
	}
}

// The blocks drift a lot (the machine got busier), but within every block treated is exactly
// 0.1 above control: paired, every resample's mean difference is 0.1 and the interval has no
// width. Setting one block's control against another block's treated (pairing broken) would
// bring the drift into the differences and widen the interval far beyond 0.1.
func TestPairedBlocksKeepsEachBlocksPair(t *testing.T) {
	var blocks []Block
	for _, level := range []float64{1, 4, 2, 7, 3, 9, 5} {
		blocks = append(blocks, Block{Control: level, Treated: level + 0.1})
	}
	est, err := PairedBlocks(blocks, 0.95, 2000, 7)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]float64{"difference": est.Difference, "bootstrap low": est.BootstrapLow,
		"bootstrap high": est.BootstrapHigh, "t low": est.StudentLow, "t high": est.StudentHigh} {
		if math.Abs(v-0.1) > 1e-9 {
			t.Fatalf("%s %g, want 0.1: the drift between blocks leaked into the within-block difference (%+v)", name, v, est)
		}
	}
}

// A treatment that helps in some blocks and hurts in others is no finding: both intervals span 0.
func TestPairedBlocksNoEffectSpans0(t *testing.T) {
	est, err := PairedBlocks([]Block{{10, 11}, {10, 9}, {10, 10.5}, {10, 9.5}, {10, 10}}, 0.95, 2000, 3)
	if err != nil {
		t.Fatal(err)
	}
	if est.BootstrapExcludes0() || est.StudentExcludes0() {
		t.Fatalf("estimate %+v: differences of both signs must not exclude 0", est)
	}
}

func TestPairedBlocksRefusesWhatItCannotTell(t *testing.T) {
	if _, err := PairedBlocks([]Block{{1, 2}, {1, 2}}, 0.95, 1000, 1); !errors.Is(err, ErrTooFewBlocks) {
		t.Fatalf("two blocks: %v, want ErrTooFewBlocks", err)
	}
	if _, err := PairedBlocks([]Block{{1, 2}, {1, math.NaN()}, {1, 2}}, 0.95, 1000, 1); err == nil {
		t.Fatal("a block with no value must be refused, not dropped")
	}
	if _, err := PairedBlocks([]Block{{1, 2}, {1, 2}, {1, 2}}, 1.5, 1000, 1); err == nil {
		t.Fatal("a confidence above 1 must be refused")
	}
}
