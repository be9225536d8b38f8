package bench

import (
	"fmt"
	"math"

	"github.com/spindle-io/spindle/agent/internal/bench/proofstats"
)

// passExtents is one pass's log file: its extents when the pass ended.
type passExtents struct {
	pass    int
	side    Side
	warmUp  bool
	extents int
}

const writePathBasis = "extents of each pass's log file (FIEMAP, merged like filefrag) after it was grown " +
	"from empty by the log writer's 64 KiB appends; compared pass pair by pass pair, the warm-up pass's file not compared"

// countVariance is the least variance of a difference of two counts: each is an integer, so
// its rounding alone is a uniform error of variance 1/12.
const countVariance = 2.0 / 12

// writePath compares the log files' extents between the sides: fragments prevented in percent
// of the mean without, with a 95 % interval, or "too few files to tell".
func writePath(files []passExtents, complete bool) *WritePath {
	w := &WritePath{Basis: writePathBasis, ExtentsOff: []int{}, ExtentsOn: []int{}}
	var passes []proofstats.Pass
	var offSum float64
	for _, f := range files {
		switch {
		case f.warmUp:
			w.ExtentsWarmUp = append(w.ExtentsWarmUp, f.extents)
			continue
		case f.side == On:
			w.ExtentsOn = append(w.ExtentsOn, f.extents)
		default:
			w.ExtentsOff = append(w.ExtentsOff, f.extents)
			offSum += float64(f.extents)
		}
		passes = append(passes, proofstats.Pass{On: f.side == On, Value: float64(f.extents)})
	}
	pairs := len(passes) / 2
	w.FragmentsPrevented = Difference{Status: NotMeasured, Pairs: pairs}
	if !complete {
		w.FragmentsPrevented.Reason = incompleteReason
		return w
	}
	est, err := proofstats.Crossover(passes, singleConfidence, countVariance)
	if err != nil {
		w.FragmentsPrevented.Reason = fmt.Sprintf("too few files to tell (%d without and %d with the features; "+
			"an interval needs at least 3 pass pairs)", len(w.ExtentsOff), len(w.ExtentsOn))
		return w
	}
	meanOff := offSum / float64(len(w.ExtentsOff))
	if meanOff <= 0 || math.IsNaN(meanOff) {
		w.FragmentsPrevented.Reason = "the log files had no extents without the features"
		return w
	}
	// prevented = (off − on) / off: the difference on − off with its sign turned, ends swapped
	percent := func(v float64) *float64 { p := -100 * v / meanOff; return &p }
	w.FragmentsPrevented = Difference{Status: status(est), Percent: percent(est.Difference),
		LowPercent: percent(est.High), HighPercent: percent(est.Low), Pairs: est.Pairs}
	if w.FragmentsPrevented.Status == NoMeasurableDifference {
		w.FragmentsPrevented.Reason = fmt.Sprintf("too few files to tell: with %d log files per side the interval includes 0",
			min(len(w.ExtentsOff), len(w.ExtentsOn)))
	}
	return w
}
