package benchrun

import (
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/bench"
)

func TestPhaseTextNamesTheWarmUpTheBlockAndTheTarget(t *testing.T) {
	widest := 8.14
	for _, c := range []struct {
		progress bench.Progress
		want     string
	}{
		{bench.Progress{Phase: bench.PhaseRunning, Pass: 1, Passes: 9, Side: bench.Off, WarmUp: true, Step: 1, Steps: 2,
			StepLabel: "file server, 1 x 1", TargetHalfWidthPercent: 5, TimeLimitSeconds: 300},
			"warm-up pass (features off, not compared), step 1 of 2: file server, 1 x 1 · target ±5 % within 300 s"},
		{bench.Progress{Phase: bench.PhaseRunning, Pass: 11, Passes: 13, Side: bench.On, Block: 3, Step: 2, Steps: 2,
			TargetHalfWidthPercent: 5, WidestHalfWidthPercent: &widest, TimeLimitSeconds: 300},
			"block 3, pass 11 of at least 13 (features on), step 2 of 2 · target ±5 % within 300 s, now ±8.1 %"},
		{bench.Progress{Phase: bench.PhaseRunning, Message: "block 2 done: widest step interval ±8.1 %, target ±5 %; adding block 3"},
			"block 2 done: widest step interval ±8.1 %, target ±5 %; adding block 3"},
		{bench.Progress{Phase: bench.PhaseRunning, Pass: 1, Passes: 1, Side: bench.Off, Step: 1, Steps: 1},
			"pass 1 of 1 (features off), step 1 of 1"},
	} {
		if got := phaseText(c.progress); !strings.EqualFold(got, c.want) {
			t.Errorf("phaseText(%+v) =\n  %q\nwant\n  %q", c.progress, got, c.want)
		}
	}
}
