package bench

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// fakeRun is an A/B run whose passes are made up: the warm-up at warmUpIOPS, then off at 1000
// and on at onIOPS, or with noise from noise(pass) added to the logarithm.
func fakeRun(t *testing.T, target, timeLimit float64, warmUpIOPS, onIOPS float64, noise func(int) float64) (*Report, []string) {
	t.Helper()
	req := Request{AB: true, TargetHalfWidthPercent: target, TimeLimitSeconds: timeLimit, StepSeconds: 1}
	r := &runner{req: req, progress: func(Progress) {}, started: time.Now()}
	rep := &Report{AB: true, PassOrder: []Side{}, Steps: []Step{{Index: 1}}, Alternation: &Alternation{}}
	r.measures = make([][]measure, 1)
	var seen []string
	err := r.alternate(context.Background(), rep, func(_ context.Context, pass int, side Side, warmUp bool) error {
		label := string(side)
		if warmUp {
			label = "warm-up " + label
		}
		seen = append(seen, label)
		iops := 1000.0
		switch {
		case warmUp:
			iops = warmUpIOPS
		case side == On:
			iops = onIOPS
		}
		iops *= math.Exp(noise(pass))
		r.measures[0] = append(r.measures[0], measure{pass: pass, side: side, warmUp: warmUp, seconds: 1,
			operations: int64(iops), latency: &histogram{n: 1, sum: int64(1e9 / iops)}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	compare(rep, r.measures, true)
	return rep, seen
}

func TestAlternateDiscardsASlowWarmUpPass(t *testing.T) {
	// The first pass at half speed and an exact +20 % with the features: the warm-up is run
	// first, off, and left out, so the change is exactly +20 % and nothing else.
	rep, seen := fakeRun(t, 5, 600, 500, 1200, func(int) float64 { return 0 })
	if strings.Join(seen, ",") != "warm-up off,off,on,on,off,off,on,on,off" || rep.WarmUpPasses != 1 {
		t.Fatalf("passes %v, want a warm-up pass and two blocks", seen)
	}
	d := rep.Steps[0].Change.Throughput
	if d.Status != Measured || math.Abs(*d.Percent-20) > 0.2 || d.Pairs != 4 {
		t.Fatalf("change %+v, want +20 %% from the 4 compared pairs", d)
	}
	if a := rep.Alternation; a.Blocks != 2 || a.StopReason != "target" || !strings.Contains(a.Stop, "within the target of ±5 %") {
		t.Fatalf("alternation %+v, want a stop at the target after 2 blocks", a)
	}
}

func TestAlternateAddsBlocksUntilTheTargetOrTheBlockLimit(t *testing.T) {
	// noise of ±10 % alternating over passes: wide after 2 blocks, so blocks are added until
	// the target of ±100 % is met; a target of ±1 % is never met, so the run stops at MaxBlocks.
	noise := func(pass int) float64 { return 0.1 * float64(pass%3-1) }
	rep, _ := fakeRun(t, 100, 600, 1000, 1000, noise)
	if a := rep.Alternation; a.StopReason != "target" || a.Blocks <= MinBlocks || a.WidestHalfWidthPercent == nil || *a.WidestHalfWidthPercent > 100 {
		t.Fatalf("alternation %+v", a)
	}
	rep, seen := fakeRun(t, 1, 600, 1000, 1000, noise)
	if a := rep.Alternation; a.StopReason != "block-limit" || a.Blocks != MaxBlocks || len(seen) != 1+4*MaxBlocks {
		t.Fatalf("alternation %+v after %d passes, want %d blocks", a, len(seen), MaxBlocks)
	}
}

func TestAlternateStopsWhenTheNextBlockWouldNotFit(t *testing.T) {
	// A 2 s time limit leaves no room for a block beyond the least two plus the clean-up reserve.
	rep, seen := fakeRun(t, 1, 2, 1000, 1000, func(pass int) float64 { return 0.1 * float64(pass%3-1) })
	if a := rep.Alternation; a.StopReason != "time-limit" || a.Blocks != MinBlocks || len(seen) != 1+4*MinBlocks ||
		!strings.Contains(a.Stop, "would not fit in the time limit of 2 s") {
		t.Fatalf("alternation %+v after %v", a, seen)
	}
}
