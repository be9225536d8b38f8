package bench

import (
	"errors"
	"fmt"
	"math"

	"github.com/spindle-io/spindle/agent/internal/bench/proofstats"
)

// The statistics of an A/B run (docs/gains.md, "Proof runs"): every figure is compared pass
// pair by pass pair over the compared passes (the warm-up excluded), as a 2×2 crossover
// (proofstats.Crossover). Throughput and mean response time are compared as logarithms, so a
// change is a ratio and its interval a percentage; the step and overall intervals hold together
// at familyConfidence (Bonferroni), so a run with many steps does not find a change in one of
// them by chance.

const (
	familyConfidence = 0.95
	// singleConfidence is for the one-off questions: what the read cache did to storage reads,
	// what write optimisation did to the log file's fragments.
	singleConfidence = 0.95
	crossoverMethod  = "2×2 crossover over adjacent pass pairs (off-on and on-off), order effect removed, " +
		"Student t on the pooled spread of the pair differences; the warm-up pass is not compared"
)

// incompleteReason is why an incomplete run states no change.
const incompleteReason = "the run did not finish: a change is stated only from whole off/on/on/off blocks of a finished run"

// intervalsInFamily is how many intervals share familyConfidence: two per step and the overall two.
func intervalsInFamily(steps int) int { return 2*steps + 2 }

// compare fills the steps' and the overall change, what the read cache caused and the write
// path's fragments from the measures, and returns the widest step interval's half-width in
// percent (nil when no interval could be formed). complete false states no change at all.
func compare(rep *Report, measures [][]measure, complete bool) *float64 {
	level := 1 - (1-familyConfidence)/float64(intervalsInFamily(len(rep.Steps)))
	var widest *float64
	widen := func(d Difference) {
		if d.Status == NotMeasured {
			return
		}
		half := math.Max(*d.HighPercent-*d.Percent, *d.Percent-*d.LowPercent)
		if widest == nil || half > *widest {
			widest = &half
		}
	}
	passes := 0
	for _, ms := range measures {
		for _, m := range ms {
			passes = max(passes, m.pass+1)
		}
	}
	// per pass: the mean over the steps of each figure's logarithm (a geometric mean, so every
	// step weighs the same), and whether the pass was compared
	overallThroughput := make([]proofstats.Pass, passes)
	overallLatency := make([]proofstats.Pass, passes)
	seen := make([]bool, passes)
	steps := float64(len(rep.Steps))
	for i := range rep.Steps {
		throughputs, latencies := comparedPasses(measures[i])
		change := &Change{
			Throughput:  ratioDifference(throughputs, level, complete, "throughput"),
			LatencyMean: ratioDifference(latencies, level, complete, "mean response time"),
		}
		rep.Steps[i].Change = change
		widen(change.Throughput)
		widen(change.LatencyMean)
		for _, m := range measures[i] {
			if m.warmUp {
				continue
			}
			seen[m.pass] = true
			overallThroughput[m.pass].On, overallLatency[m.pass].On = m.side == On, m.side == On
			overallThroughput[m.pass].Value += logOrNaN(m.throughput()) / steps
			overallLatency[m.pass].Value += logOrNaN(m.latency.mean()) / steps
		}
	}
	var throughput, latency []proofstats.Pass
	for pass := range passes {
		if seen[pass] {
			throughput = append(throughput, overallThroughput[pass])
			latency = append(latency, overallLatency[pass])
		}
	}
	rep.Overall = &Change{
		Throughput:  logDifference(throughput, level, complete, "throughput"),
		LatencyMean: logDifference(latency, level, complete, "mean response time"),
	}
	return widest
}

// comparedPasses are a step's throughput and mean latency per compared pass, in pass order.
func comparedPasses(ms []measure) (throughput, latency []proofstats.Pass) {
	throughput = make([]proofstats.Pass, 0, len(ms))
	latency = make([]proofstats.Pass, 0, len(ms))
	for _, m := range ms {
		if !m.warmUp {
			throughput = append(throughput, proofstats.Pass{On: m.side == On, Value: m.throughput()})
			latency = append(latency, proofstats.Pass{On: m.side == On, Value: m.latency.mean()})
		}
	}
	return throughput, latency
}

func logOrNaN(v float64) float64 {
	if v <= 0 {
		return math.NaN()
	}
	return math.Log(v)
}

// ratioDifference compares positive figures as ratios: their logarithms through logDifference.
func ratioDifference(passes []proofstats.Pass, level float64, complete bool, figure string) Difference {
	logs := make([]proofstats.Pass, len(passes))
	for i, p := range passes {
		// a pass with no throughput has no logarithm: say so rather than drop the pass
		if p.Value <= 0 && complete {
			return Difference{Status: NotMeasured, Pairs: len(passes) / 2,
				Reason: fmt.Sprintf("pass %d measured no %s", i+1, figure)}
		}
		logs[i] = proofstats.Pass{On: p.On, Value: logOrNaN(p.Value)}
	}
	return logDifference(logs, level, complete, figure)
}

// logDifference is the crossover on logarithms, stated in percent of off.
func logDifference(passes []proofstats.Pass, level float64, complete bool, figure string) Difference {
	if !complete {
		return Difference{Status: NotMeasured, Pairs: len(passes) / 2, Reason: incompleteReason}
	}
	est, err := proofstats.Crossover(passes, level, 0)
	if err != nil {
		return notMeasured(err, len(passes)/2, figure)
	}
	percent := func(v float64) *float64 { p := 100 * math.Expm1(v); return &p }
	return Difference{Status: status(est), Percent: percent(est.Difference), LowPercent: percent(est.Low),
		HighPercent: percent(est.High), Pairs: est.Pairs}
}

func status(est proofstats.Estimate) DifferenceStatus {
	if est.Excludes0() {
		return Measured
	}
	return NoMeasurableDifference
}

func notMeasured(err error, pairs int, figure string) Difference {
	if errors.Is(err, proofstats.ErrTooFewPairs) {
		return Difference{Status: NotMeasured, Pairs: pairs,
			Reason: fmt.Sprintf("too few pass pairs to tell (%d; an interval needs at least 3)", pairs)}
	}
	return Difference{Status: NotMeasured, Pairs: pairs, Reason: fmt.Sprintf("no interval for the %s: %v", figure, err)}
}
