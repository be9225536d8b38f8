package proofrun

import (
	"fmt"
	"math"
	"time"

	"github.com/spindle-io/spindle/agent/internal/proofrun/proofstats"
)

// ArmsReport is an interleaved run of several arms (docs/benchmarks/read-cache.md, "Three arms
// in one run"): a warm-up pass with the control, then blocks in which every arm runs one pass,
// in an order drawn at random for each block, and every effect stated against another arm over
// the whole blocks, each block's pair kept together.
type ArmsReport struct {
	Profile     string     `json:"profile"`
	StartedAt   time.Time  `json:"startedAt"`
	EndedAt     time.Time  `json:"endedAt"`
	Arms        []string   `json:"arms"`
	Control     string     `json:"control"`
	Seed        uint64     `json:"seed"`
	StepSeconds float64    `json:"stepSeconds"`
	Clients     []int      `json:"clients"`
	DataBytes   int64      `json:"dataBytes"`
	Device      Device     `json:"device"`
	WarmUp      *ArmPass   `json:"warmUp"`
	Blocks      []ArmBlock `json:"blocks"`
	// Stop says why no further block ran; Stopped is set when the run was cut short (the
	// effects then rest on the whole blocks before it).
	Stop    string `json:"stop"`
	Stopped string `json:"stopped,omitempty"`
	// Effects are every arm's effect against the control, and the first non-control arm's
	// against the last (the read cache against the oracle: how close it gets to the ceiling),
	// per step (Clients > 0) and over all steps (Clients 0: geometric means over the steps).
	Effects []ArmEffect `json:"effects"`
	// LoadAverage is the 1-minute load average at the start of each measured pass: descriptive,
	// what else the machine was doing.
	LoadAverage  LoadSummary                 `json:"loadAverage"`
	Accelerators map[string]AcceleratorStats `json:"accelerators"`
	Method       string                      `json:"method"`
	Notes        []string                    `json:"notes"`
}

// ArmBlock is one block: its arms' order and their passes in that order.
type ArmBlock struct {
	Index  int       `json:"index"`
	Order  []string  `json:"order"`
	Passes []ArmPass `json:"passes"`
}

// ArmPass is one arm's pass through every step.
type ArmPass struct {
	Arm       string    `json:"arm"`
	StartedAt time.Time `json:"startedAt"`
	// LoadAverage1m is /proc/loadavg's first field at the pass's start; null where not measured.
	LoadAverage1m *float64  `json:"loadAverage1m"`
	Steps         []ArmStep `json:"steps"`
}

// ArmStep is one step's measurement in a pass.
type ArmStep struct {
	Clients            int     `json:"clients"`
	TPS                float64 `json:"tps"`
	LatencyMeanSeconds float64 `json:"latencyMeanSeconds"`
	Transactions       int64   `json:"transactions"`
}

// LoadSummary is the spread of the load averages sampled during the run (null when none were).
type LoadSummary struct {
	Min  *float64 `json:"min"`
	Mean *float64 `json:"mean"`
	Max  *float64 `json:"max"`
}

// ArmEffect is Arm against Against at one step (Clients) or over all steps (Clients 0).
type ArmEffect struct {
	Arm         string       `json:"arm"`
	Against     string       `json:"against"`
	Clients     int          `json:"clients"`
	Throughput  PairedChange `json:"throughput"`
	LatencyMean PairedChange `json:"latencyMean"`
}

// PairedChange is a ratio change in percent of Against with its 95 % bootstrap interval over
// blocks and the t interval beside it; Status follows the bootstrap interval.
type PairedChange struct {
	Status               DifferenceStatus `json:"status"`
	Percent              *float64         `json:"percent,omitempty"`
	BootstrapLowPercent  *float64         `json:"bootstrapLowPercent,omitempty"`
	BootstrapHighPercent *float64         `json:"bootstrapHighPercent,omitempty"`
	StudentLowPercent    *float64         `json:"studentLowPercent,omitempty"`
	StudentHighPercent   *float64         `json:"studentHighPercent,omitempty"`
	Blocks               int              `json:"blocks"`
	Reason               string           `json:"reason,omitempty"`
}

const (
	armsConfidence = 0.95
	armsResamples  = 10000
	armsMethod     = "every arm once per block in a random order; an effect is the mean over blocks of the " +
		"block's log ratio (arm / against), with a 95 % percentile bootstrap over blocks (10,000 resamples, " +
		"each block's pair kept together) and a Student t interval beside it; the warm-up pass is not compared"
)

// armEffects computes the report's effects from its whole blocks.
func armEffects(rep *ArmsReport) []ArmEffect {
	var pairs [][2]string
	var treated []string
	for _, a := range rep.Arms {
		if a != rep.Control {
			pairs = append(pairs, [2]string{a, rep.Control})
			treated = append(treated, a)
		}
	}
	if len(treated) >= 2 {
		pairs = append(pairs, [2]string{treated[0], treated[len(treated)-1]})
	}
	var effects []ArmEffect
	for _, p := range pairs {
		for step := -1; step < len(rep.Clients); step++ {
			e := ArmEffect{Arm: p[0], Against: p[1]}
			if step >= 0 {
				e.Clients = rep.Clients[step]
			}
			tps := func(s ArmStep) float64 { return s.TPS }
			latency := func(s ArmStep) float64 { return s.LatencyMeanSeconds }
			e.Throughput = pairedChange(rep, p, step, tps, rep.Seed)
			e.LatencyMean = pairedChange(rep, p, step, latency, rep.Seed+1)
			effects = append(effects, e)
		}
	}
	return effects
}

// pairedChange compares arm pair[0] with pair[1] over the blocks on the logarithm of figure at
// step (or, step −1, the mean of its logarithms over the steps).
func pairedChange(rep *ArmsReport, pair [2]string, step int, figure func(ArmStep) float64, seed uint64) PairedChange {
	var blocks []proofstats.Block
	for _, b := range rep.Blocks {
		treated, okT := armLog(b, pair[0], step, figure)
		control, okC := armLog(b, pair[1], step, figure)
		if !okT || !okC {
			return PairedChange{Status: NotMeasured, Blocks: len(blocks),
				Reason: fmt.Sprintf("block %d has no positive value for %s or %s", b.Index, pair[0], pair[1])}
		}
		blocks = append(blocks, proofstats.Block{Control: control, Treated: treated})
	}
	est, err := proofstats.PairedBlocks(blocks, armsConfidence, armsResamples, seed)
	if err != nil {
		return PairedChange{Status: NotMeasured, Blocks: len(blocks), Reason: err.Error()}
	}
	percent := func(v float64) *float64 { p := 100 * math.Expm1(v); return &p }
	status := NoMeasurableDifference
	if est.BootstrapExcludes0() {
		status = Measured
	}
	return PairedChange{Status: status, Percent: percent(est.Difference),
		BootstrapLowPercent: percent(est.BootstrapLow), BootstrapHighPercent: percent(est.BootstrapHigh),
		StudentLowPercent: percent(est.StudentLow), StudentHighPercent: percent(est.StudentHigh), Blocks: est.Blocks}
}

// armLog is the logarithm of figure in arm's pass of block b at step, or the mean over steps.
func armLog(b ArmBlock, arm string, step int, figure func(ArmStep) float64) (float64, bool) {
	for _, p := range b.Passes {
		if p.Arm != arm {
			continue
		}
		steps := p.Steps
		if step >= 0 {
			if step >= len(steps) {
				return 0, false
			}
			steps = steps[step : step+1]
		}
		var sum float64
		for _, s := range steps {
			v := figure(s)
			if !(v > 0) || math.IsInf(v, 0) {
				return 0, false
			}
			sum += math.Log(v)
		}
		return sum / float64(len(steps)), len(steps) > 0
	}
	return 0, false
}

func summariseLoad(rep *ArmsReport) LoadSummary {
	var s LoadSummary
	var sum float64
	n := 0
	for _, b := range rep.Blocks {
		for _, p := range b.Passes {
			if p.LoadAverage1m == nil {
				continue
			}
			v := *p.LoadAverage1m
			if s.Min == nil || v < *s.Min {
				s.Min = &v
			}
			if s.Max == nil || v > *s.Max {
				s.Max = &v
			}
			sum += v
			n++
		}
	}
	if n > 0 {
		mean := sum / float64(n)
		s.Mean = &mean
	}
	return s
}
