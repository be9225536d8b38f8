//go:build !race

// Not built with -race: thousands of simulated runs through the scheduler and the comparison
// are computation on one goroutine, where the race detector finds nothing and multiplies the CPU
// cost (4 to 15 times). The agent's npm test runs them in a second pass, without -race
// (package.json).

package proofrun

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The proof-run harness: simulated A/B runs with no real change, driven through the real
// scheduler (alternate: warm-up pass, blocks, the stop rule) and the real comparison (compare),
// count how often any step or overall change is stated as measured. docs/gains.md, "Proof
// runs", records the rates this prints (go test -run TestProofRunFalseChangeRate -v).

type proofRunScenario struct {
	name         string
	phi          float64 // AR(1) correlation of the noise from one pass to the next
	driftPerPass float64 // log units per pass
	warmUp       float64 // the first pass is this much slower (log units) ...
	warmUpDecay  float64 // ... and each later pass this fraction of the one before (pgbench's buffers)
	heavyTails   bool    // Student t with 3 degrees of freedom instead of normal noise
}

var proofRunScenarios = []proofRunScenario{
	{name: "independent passes"},
	{name: "linear drift 1 % per pass", driftPerPass: 0.01},
	{name: "first pass 10 % slower", warmUp: 0.1},
	{name: "warm-up fading by half each pass", warmUp: 0.1, warmUpDecay: 0.5},
	{name: "AR(1) between passes, φ 0.5", phi: 0.5},
	{name: "AR(1) between passes, φ 0.8", phi: 0.8},
	{name: "heavy tails (t, 3 df)", heavyTails: true},
	{name: "combined (φ 0.8, drift, fading warm-up, heavy tails)", phi: 0.8, driftPerPass: 0.01, warmUp: 0.1, warmUpDecay: 0.5, heavyTails: true},
}

// simulatedRun runs one A/B run of steps steps whose passes vary by sigma (log units) and whose
// features change throughput by effect (log units); it returns the report's changes.
func simulatedRun(rng *rand.Rand, sc proofRunScenario, steps int, sigma, effect, target float64) *Report {
	req := Request{AB: true, TargetHalfWidthPercent: target, TimeLimitSeconds: 1e6, StepSeconds: 1}
	r := &runner{req: req, progress: func(Progress) {}, started: time.Now()}
	rep := &Report{AB: true, PassOrder: []Side{}, Alternation: &Alternation{TargetHalfWidthPercent: target}}
	for i := range steps {
		rep.Steps = append(rep.Steps, Step{Index: i + 1})
	}
	r.measures = make([][]measure, steps)
	noise := make([]float64, steps)
	draw := func() float64 {
		z := rng.NormFloat64()
		if sc.heavyTails {
			chi := 0.0
			for range 3 {
				g := rng.NormFloat64()
				chi += g * g
			}
			z = z / math.Sqrt(chi/3) / math.Sqrt(3) // unit variance
		}
		return z
	}
	_ = r.alternate(context.Background(), rep, func(_ context.Context, pass int, side Side, warmUp bool) error {
		slower := sc.warmUp
		if pass > 0 {
			slower = sc.warmUp * math.Pow(sc.warmUpDecay, float64(pass))
		}
		for i := range steps {
			noise[i] = sc.phi*noise[i] + math.Sqrt(1-sc.phi*sc.phi)*draw()
			v := 5 + sigma*noise[i] + sc.driftPerPass*float64(pass) - slower
			if side == On {
				v += effect
			}
			tps := math.Exp(v)
			latency := &histogram{n: 1, sum: int64(1e9 / tps * math.Exp(sigma/2*draw()))}
			r.measures[i] = append(r.measures[i], measure{pass: pass, side: side, warmUp: warmUp, seconds: 1,
				operations: 1, tps: &tps, latency: latency})
		}
		return nil
	})
	compare(rep, r.measures, true)
	return rep
}

func anyMeasured(rep *Report) bool {
	changes := []*Change{rep.Overall}
	for _, s := range rep.Steps {
		changes = append(changes, s.Change)
	}
	for _, c := range changes {
		if c.Throughput.Status == Measured || c.LatencyMean.Status == Measured {
			return true
		}
	}
	return false
}

const simulatedRuns = 1000

func TestProofRunFalseChangeRate(t *testing.T) {
	for _, sc := range proofRunScenarios {
		for _, steps := range []int{1, 4} {
			rng := rand.New(rand.NewPCG(20261128, uint64(steps)))
			falseChanges, blocks := 0, 0
			for range simulatedRuns {
				rep := simulatedRun(rng, sc, steps, 0.03, 0, 5)
				if anyMeasured(rep) {
					falseChanges++
				}
				blocks += rep.Alternation.Blocks
			}
			rate := float64(falseChanges) / simulatedRuns
			t.Logf("%-55s %d steps: false change %.1f %%, mean blocks %.1f", sc.name, steps, 100*rate,
				float64(blocks)/simulatedRuns)
			if rate > 0.07 {
				t.Errorf("%s, %d steps: %.1f %% of unchanged runs stated a change; at most 7 %%", sc.name, steps, 100*rate)
			}
		}
	}
}

func TestProofRunPower(t *testing.T) {
	for _, effect := range []float64{0.03, 0.10} {
		for _, sc := range []proofRunScenario{proofRunScenarios[0], proofRunScenarios[len(proofRunScenarios)-1]} {
			rng := rand.New(rand.NewPCG(20261128, 7))
			found := 0
			for range simulatedRuns {
				rep := simulatedRun(rng, sc, 4, 0.03, math.Log1p(effect), 5)
				if d := rep.Overall.Throughput; d.Status == Measured && *d.Percent > 0 {
					found++
				}
			}
			power := float64(found) / simulatedRuns
			t.Logf("%-55s +%.0f %% throughput: overall change found in %.1f %% of runs", sc.name, 100*effect, 100*power)
			if effect >= 0.1 && power < 0.9 {
				t.Errorf("%s: a +10 %% change found in only %.1f %% of runs", sc.name, 100*power)
			}
		}
	}
}
