package mrc

import (
	"math"
	"testing"
)

// At 1 % the sample must hold exactly one page of every aligned group of StratumKeys pages,
// and lowering the threshold must keep whole groups at the lower rate; each page's chance
// must stay the rate whatever the threshold, including above 1 %, where the other pages join.
func TestStratifiedHashSamplesEachGroupOnce(t *testing.T) {
	const groups = 20000
	chosenAt := make([]int, StratumKeys) // how often each offset in a group is the chosen one
	kept := map[float64]int{}
	rates := []float64{0.001, 0.005, 0.05, 0.5}
	for g := range uint64(groups) {
		chosen := 0
		for off := range uint64(StratumKeys) {
			h := PageKeyHash(3, 77, g*StratumKeys+off)
			if h < thresholdFor(DefaultRate) {
				chosen++
				chosenAt[off]++
			}
			for _, r := range rates {
				if h < thresholdFor(r) {
					kept[r]++
				}
			}
		}
		if chosen != 1 {
			t.Fatalf("group %d: %d pages below the 1 %% threshold, want exactly 1", g, chosen)
		}
	}
	// Offsets are picked uniformly: each of the 100 about groups/100 = 200 ± 14 times.
	for off, n := range chosenAt {
		if n < 130 || n > 270 {
			t.Errorf("offset %d chosen in %d groups of %d, want about %d", off, n, groups, groups/StratumKeys)
		}
	}
	for _, r := range rates {
		want := r * groups * StratumKeys
		if sd := math.Sqrt(want); math.Abs(float64(kept[r])-want) > 5*sd {
			t.Errorf("rate %g kept %d pages of %d, want %.0f ± %.0f", r, kept[r], groups*StratumKeys, want, sd)
		}
	}
	if thresholdFor(DefaultRate) != strataEnd-1 {
		t.Errorf("the 1 %% threshold is %d, want %d (only chosen pages below it)", thresholdFor(DefaultRate), strataEnd-1)
	}
}

// Distinct keys must keep distinct hashes (the estimator keys its table by hash), across
// pages, files and disks.
func TestKeyHashesAreDistinct(t *testing.T) {
	seen := map[uint64]bool{}
	for ino := range uint64(20) {
		for index := range uint64(20000) {
			seen[PageKeyHash(1, ino, index)] = true
		}
	}
	for block := range uint64(20000) {
		seen[BlockKeyHash(1, block)] = true
	}
	if len(seen) != 21*20000 {
		t.Fatalf("%d distinct hashes of %d keys", len(seen), 21*20000)
	}
}
