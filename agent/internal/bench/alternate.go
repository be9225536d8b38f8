package bench

import (
	"context"
	"fmt"
	"time"
)

// passFunc measures one pass: it switches the features for side, starts the data cold, runs
// every step and appends each step's measure (with pass, side and warmUp) to r.measures.
type passFunc func(ctx context.Context, pass int, side Side, warmUp bool) error

// blockOrder is one block of an A/B run: a linear drift weighs both sides equally, and every
// off-then-on pair is matched by an on-then-off one, so an order effect cancels too.
var blockOrder = []Side{Off, On, On, Off}

// cleanupReserve is kept free at the end of the time limit for removing the run's files.
const cleanupReserve = 3 * time.Second

// alternate runs a run's passes through run: one pass without A/B. With A/B a warm-up pass
// with the features off, then blocks of off, on, on, off: at least MinBlocks, then more while
// some step interval is wider than the target, the next block fits in the time limit (judged
// by the longest block so far) and fewer than MaxBlocks ran. rep.Alternation says why it stopped.
func (r *runner) alternate(ctx context.Context, rep *Report, run passFunc) error {
	start := func(side Side, warmUp bool) error {
		pass := len(rep.PassOrder)
		rep.PassOrder = append(rep.PassOrder, side)
		return run(ctx, pass, side, warmUp)
	}
	if !r.req.AB {
		r.passes = 1
		return start(Off, false)
	}
	rep.WarmUpPasses = 1
	r.passes = 1 + 4*MinBlocks
	if err := start(Off, true); err != nil {
		return err
	}
	a := rep.Alternation
	var longest time.Duration
	for block := 1; ; block++ {
		r.block = block
		r.passes = max(r.passes, 1+4*block)
		began := time.Now()
		for _, side := range blockOrder {
			if err := start(side, false); err != nil {
				return err
			}
		}
		longest = max(longest, time.Since(began))
		a.Blocks = block
		if block < MinBlocks {
			continue
		}
		r.widest = compare(rep, r.measures, true)
		a.WidestHalfWidthPercent = r.widest
		widest := "no step interval could be formed"
		if r.widest != nil {
			widest = fmt.Sprintf("widest step interval ±%.1f %%", *r.widest)
		}
		next := longest + longest/4
		switch {
		case r.widest != nil && *r.widest <= r.req.TargetHalfWidthPercent:
			a.StopReason = "target"
			a.Stop = fmt.Sprintf("every step interval within the target of ±%g %% after %d blocks (%s)",
				r.req.TargetHalfWidthPercent, block, widest)
			return nil
		case block >= MaxBlocks:
			a.StopReason = "block-limit"
			a.Stop = fmt.Sprintf("the most blocks a run takes (%d) ran; %s, target ±%g %%", MaxBlocks, widest,
				r.req.TargetHalfWidthPercent)
			return nil
		case time.Since(r.started)+next+cleanupReserve > r.req.TimeLimit():
			a.StopReason = "time-limit"
			a.Stop = fmt.Sprintf("another block (about %.0f s) would not fit in the time limit of %.0f s; %s, target ±%g %%",
				next.Seconds(), r.req.TimeLimitSeconds, widest, r.req.TargetHalfWidthPercent)
			return nil
		}
		r.report(Progress{Phase: PhaseRunning, Message: fmt.Sprintf("block %d done: %s, target ±%g %%; adding block %d",
			block, widest, r.req.TargetHalfWidthPercent, block+1)})
	}
}
