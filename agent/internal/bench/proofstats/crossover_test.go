package proofstats

import (
	"errors"
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

// Worked by hand: pairs (off 10, on 12), (on 13, off 10), (off 11, on 13), (on 12, off 10).
// Off-then-on differences 2, 2 (mean 2, squares 0); on-then-off −3, −2 (mean −2.5, squares 0.5).
// Effect (2 + 2.5) / 2 = 2.25; pooled variance 0.5 / 2 = 0.25; SE √(0.25 / 4 × (1/2 + 1/2)) =
// 0.25; t(0.975, 2) = 4.303: 2.25 ± 1.076.
func TestCrossoverHandWorked(t *testing.T) {
	est, err := Crossover([]Pass{{false, 10}, {true, 12}, {true, 13}, {false, 10}, {false, 11}, {true, 13}, {true, 12}, {false, 10}}, 0.95, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !near(est.Difference, 2.25) || !near(est.Low, 1.174) || !near(est.High, 3.326) || est.Pairs != 4 || est.DF != 2 {
		t.Fatalf("estimate %+v, want 2.25 in [1.174, 3.326] from 4 pairs, 2 df", est)
	}
	if !est.Excludes0() {
		t.Fatal("an interval above 0 is a measurable difference")
	}
}

// A linear drift across the passes is an order effect within every pair: it cancels exactly.
func TestCrossoverCancelsALinearDrift(t *testing.T) {
	var passes []Pass
	for i, on := range []bool{false, true, true, false, false, true, true, false} {
		v := 100 + 7*float64(i) // drift of 7 per pass
		if on {
			v += 3
		}
		passes = append(passes, Pass{on, v})
	}
	est, err := Crossover(passes, 0.95, 0)
	if err != nil || !near(est.Difference, 3) || !near(est.Low, 3) || !near(est.High, 3) {
		t.Fatalf("Crossover = %+v, %v; want exactly 3 whatever the drift", est, err)
	}
	// The plain difference of means would not have: off passes sit at 0, 3, 4, 7; on at 1, 2, 5, 6.
}

func TestCrossoverIncludes0WhenTheNoiseSwampsTheEffect(t *testing.T) {
	est, err := Crossover([]Pass{{false, 10}, {true, 12}, {true, 9}, {false, 11}, {false, 12}, {true, 10}, {true, 11}, {false, 10}}, 0.95, 0)
	if err != nil || est.Excludes0() || est.Low >= 0 || est.High <= 0 {
		t.Fatalf("Crossover = %+v, %v; want an interval across 0", est, err)
	}
}

func TestCrossoverFloorsTheSpreadOfCounts(t *testing.T) {
	// Extents of log files: every off file 3, every on file 1. The spread is 0, but counts are
	// rounded: the floor of 1/6 gives SE √(1/6 / 4 × 1) = 0.204, t(0.975, 2) × SE = 0.878.
	passes := []Pass{{false, 3}, {true, 1}, {true, 1}, {false, 3}, {false, 3}, {true, 1}, {true, 1}, {false, 3}}
	est, err := Crossover(passes, 0.95, 2.0/12)
	if err != nil || !near(est.Difference, -2) || !near(est.High-est.Difference, 0.878) {
		t.Fatalf("Crossover = %+v, %v; want −2 ± 0.878", est, err)
	}
}

func TestCrossoverRefusesWhatItCannotPair(t *testing.T) {
	for name, passes := range map[string][]Pass{
		"one block":      {{false, 1}, {true, 2}, {true, 2}, {false, 1}},
		"one order only": {{false, 1}, {true, 2}, {false, 1}, {true, 2}, {false, 1}, {true, 2}},
		"odd":            {{false, 1}, {true, 2}, {true, 2}},
		"same state":     {{false, 1}, {false, 2}, {true, 2}, {false, 1}, {false, 1}, {true, 2}},
		"not a number":   {{false, 1}, {true, math.NaN()}, {true, 2}, {false, 1}, {false, 1}, {true, 2}},
	} {
		if _, err := Crossover(passes, 0.95, 0); err == nil {
			t.Errorf("%s: Crossover accepted %v", name, passes)
		}
	}
	if _, err := Crossover([]Pass{{false, 1}, {true, 2}, {true, 2}, {false, 1}}, 0.95, 0); !errors.Is(err, ErrTooFewPairs) {
		t.Errorf("one block: %v, want ErrTooFewPairs", err)
	}
}

// Both pairs of a block large together (a run of fast passes): the pairs' pooled spread, √2 /
// 2 per effect, understates the blocks' own spread, 1; the wider one is used. Block 1: off 10,
// on 12, on 12, off 10 (contrast 2); block 2: off 10, on 14, on 14, off 10 (contrast 4).
func TestCrossoverNeverNarrowerThanTheBlocksSpread(t *testing.T) {
	passes := []Pass{{false, 10}, {true, 12}, {true, 12}, {false, 10}, {false, 10}, {true, 14}, {true, 14}, {false, 10}}
	est, err := Crossover(passes, 0.95, 0)
	if err != nil || !near(est.Difference, 3) || !near(est.High-est.Difference, 4.303) {
		t.Fatalf("Crossover = %+v, %v; want 3 ± 4.303 (t(0.975, 2) × 1)", est, err)
	}
}
