package bench

import (
	"math"
	"strings"
	"testing"
)

// abOrder is a warm-up pass and two blocks: the least an A/B run compares.
var abOrder = []Side{Off, Off, On, On, Off, Off, On, On, Off}

// stepMeasures builds one step's measures in abOrder from each pass's IOPS (1 s, latency the
// inverse: one I/O in flight).
func stepMeasures(iops ...float64) []measure {
	var ms []measure
	for pass, v := range iops {
		ms = append(ms, measure{pass: pass, side: abOrder[pass], warmUp: pass == 0, seconds: 1, operations: int64(v),
			latency: &histogram{n: 1, sum: int64(1e9 / v)}})
	}
	return ms
}

func abReport(steps int) *Report {
	rep := &Report{AB: true, PassOrder: abOrder, WarmUpPasses: 1}
	for i := range steps {
		rep.Steps = append(rep.Steps, Step{Index: i + 1})
	}
	return rep
}

func TestCompareStatesChangesWithIntervals(t *testing.T) {
	rep := abReport(2)
	measures := [][]measure{
		// step 1: on is 20 % faster in every pass; the warm-up (500) is not compared
		stepMeasures(500, 1000, 1200, 1200, 1000, 1010, 1212, 1212, 1010),
		// step 2: on and off swap places from pass to pass: no change to find
		stepMeasures(500, 1000, 1100, 950, 1040, 1060, 990, 1080, 1000),
	}
	widest := compare(rep, measures, true)
	one, two := rep.Steps[0].Change, rep.Steps[1].Change
	if one.Throughput.Status != Measured || math.Abs(*one.Throughput.Percent-20) > 1e-6 || one.Throughput.Pairs != 4 {
		t.Fatalf("step 1 throughput %+v, want +20 %% measured from 4 pairs", one.Throughput)
	}
	if one.LatencyMean.Status != Measured || math.Abs(*one.LatencyMean.Percent-(100/1.2-100)) > 1e-3 {
		t.Fatalf("step 1 latency %+v, want −16.7 %%", one.LatencyMean)
	}
	if two.Throughput.Status != NoMeasurableDifference || *two.Throughput.LowPercent >= 0 || *two.Throughput.HighPercent <= 0 {
		t.Fatalf("step 2 throughput %+v, want an interval across 0", two.Throughput)
	}
	if widest == nil || *widest < *two.Throughput.HighPercent-*two.Throughput.Percent {
		t.Fatalf("widest %v is not the widest step interval", widest)
	}
	if rep.Overall == nil || rep.Overall.Throughput.Pairs != 4 {
		t.Fatalf("overall %+v", rep.Overall)
	}
}

func TestCompareStatesNoChangeForAnIncompleteRun(t *testing.T) {
	rep := abReport(1)
	// the same clear +20 % as above, but the run stopped: no figure
	compare(rep, [][]measure{stepMeasures(500, 1000, 1200, 1200, 1000, 1010, 1212, 1212, 1010)}, false)
	for _, d := range []Difference{rep.Steps[0].Change.Throughput, rep.Steps[0].Change.LatencyMean, rep.Overall.Throughput} {
		if d.Status != NotMeasured || d.Percent != nil || d.LowPercent != nil || !strings.Contains(d.Reason, "did not finish") {
			t.Fatalf("incomplete run stated %+v", d)
		}
	}
}

func TestCompareNeedsTwoBlocks(t *testing.T) {
	rep := abReport(1)
	rep.PassOrder = abOrder[:5]
	compare(rep, [][]measure{stepMeasures(500, 1000, 1200, 1200, 1000)}, true)
	d := rep.Steps[0].Change.Throughput
	if d.Status != NotMeasured || !strings.Contains(d.Reason, "too few pass pairs") {
		t.Fatalf("one block: %+v, want too few pass pairs", d)
	}
}

func TestCompareSaysWhenAPassMeasuredNothing(t *testing.T) {
	rep := abReport(1)
	compare(rep, [][]measure{stepMeasures(500, 1000, 1200, 1200, 1000, 0.5, 1212, 1212, 1010)}, true)
	if d := rep.Steps[0].Change.Throughput; d.Status != NotMeasured || !strings.Contains(d.Reason, "measured no throughput") {
		t.Fatalf("a pass with no I/O: %+v", d)
	}
}

func TestWritePathSaysTooFewFilesToTell(t *testing.T) {
	files := func(extents ...int) []passExtents {
		var out []passExtents
		for pass, n := range extents {
			out = append(out, passExtents{pass: pass, side: abOrder[pass], warmUp: pass == 0, extents: n})
		}
		return out
	}
	// The case: one block, 3 and 3 extents without, 6 and 3 with: not −50 %.
	w := writePath(files(4, 3, 6, 3, 3), true)
	if d := w.FragmentsPrevented; d.Status != NotMeasured || d.Percent != nil || !strings.Contains(d.Reason, "too few files to tell") {
		t.Fatalf("one block: %+v", d)
	}
	if len(w.ExtentsOff) != 2 || len(w.ExtentsOn) != 2 || len(w.ExtentsWarmUp) != 1 {
		t.Fatalf("extents %+v", w)
	}
	// Two blocks, still a coin toss: no measurable difference, and the reason says why.
	w = writePath(files(4, 3, 6, 3, 3, 3, 3, 6, 4), true)
	if d := w.FragmentsPrevented; d.Status != NoMeasurableDifference || !strings.Contains(d.Reason, "too few files to tell") {
		t.Fatalf("two noisy blocks: %+v", d)
	}
	// Every file without the features 3 extents, with them 1: 66.7 % prevented. The counts'
	// rounding floor: SE √(1/6 / 4) = 0.204 extents, t(0.975, 2) × 0.204 = 0.878, over 3 extents.
	w = writePath(files(3, 3, 1, 1, 3, 3, 1, 1, 3), true)
	d := w.FragmentsPrevented
	if d.Status != Measured || math.Abs(*d.Percent-200.0/3) > 1e-6 || math.Abs(*d.HighPercent-*d.Percent-100*0.878/3) > 0.05 {
		t.Fatalf("consistent prevention: %+v", d)
	}
	if d := writePath(files(3, 3, 1, 1, 3, 3, 1, 1, 3), false).FragmentsPrevented; d.Status != NotMeasured {
		t.Fatalf("incomplete run: %+v", d)
	}
}

func TestCausedReadsIsTheChangeInStorageReads(t *testing.T) {
	reads := func(storage ...int64) []PassReads {
		var out []PassReads
		for pass, s := range storage {
			out = append(out, PassReads{Pass: pass + 1, Side: abOrder[pass], WarmUp: pass == 0, StorageReads: s, MemoryReads: 1000 - s})
		}
		return out
	}
	// Without the features 60 % of 1,000 reads per pass went to storage, with them 10 %: the
	// share falls by 50 points in every pair (no spread), so 4,000 reads with × 0.5 = 2,000 saved.
	c := causedReads(reads(900, 600, 100, 100, 600, 600, 100, 100, 600), true, "", true)
	if c.Status != Measured || c.ReadsWith != 4000 || math.Abs(*c.StorageReadsSaved-2000) > 1e-6 ||
		math.Abs(*c.ShareChangePoints+50) > 1e-6 || *c.StorageSharePercentOff != 60 || *c.StorageSharePercentOn != 10 {
		t.Fatalf("caused %+v", c)
	}
	// Memory served everything either way (the page cache held the files): nothing caused.
	c = causedReads(reads(0, 20, 10, 30, 0, 10, 20, 0, 30), true, "", true)
	if c.Status != NoMeasurableDifference || *c.StorageReadsSavedLow >= 0 || *c.StorageReadsSavedHigh <= 0 {
		t.Fatalf("no cause: %+v", c)
	}
	if c := causedReads(nil, false, "not measured: PostgreSQL's reads are not seen", true); c.Status != NotMeasured ||
		!strings.Contains(c.Reason, "PostgreSQL") || c.StorageReadsSaved != nil {
		t.Fatalf("unclassified: %+v", c)
	}
	if c := causedReads(reads(900, 600, 100, 100, 600, 600, 100, 100, 600), true, "", false); c.Status != NotMeasured {
		t.Fatalf("incomplete: %+v", c)
	}
}
