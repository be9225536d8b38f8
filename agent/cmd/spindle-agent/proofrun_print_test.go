package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/proofrun"
)

func TestPrintReportWordsEachChangeByItsInterval(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	measured := proofrun.Difference{Status: proofrun.Measured, Percent: f(6.3), LowPercent: f(2.1), HighPercent: f(10.7), Pairs: 4}
	none := proofrun.Difference{Status: proofrun.NoMeasurableDifference, Percent: f(1.2), LowPercent: f(-3.1), HighPercent: f(4.2), Pairs: 4}
	stopped := proofrun.Difference{Status: proofrun.NotMeasured, Reason: "the run did not finish"}
	iops := func(v float64) *proofrun.Result {
		return &proofrun.Result{IOPS: v, LatencyMeanSeconds: 1 / v, Passes: 4}
	}
	r := &proofrun.Report{Profile: "fileserver", AB: true, Throughput: "iops", WarmUpPasses: 1,
		Alternation: &proofrun.Alternation{Blocks: 2, Stop: "every step interval within the target", ConfidencePercent: 95, IntervalsInFamily: 6},
		Steps: []proofrun.Step{
			{Label: "file server, 1 x 1", Off: iops(1000), On: iops(1063), Change: &proofrun.Change{Throughput: measured, LatencyMean: none}},
			{Label: "file server, 2 x 2", Off: iops(2000), On: iops(2024), Change: &proofrun.Change{Throughput: none, LatencyMean: stopped}},
		},
		Overall: &proofrun.Change{Throughput: none, LatencyMean: none}}
	var out bytes.Buffer
	printReport(&out, r)
	text := out.String()
	for _, want := range []string{"+6.3 % (+2.1 to +10.7)", "no measurable difference (-3.1 to +4.2 %)", "not measured",
		"1 warm-up, then 2 blocks", "95 % for the 6 step and overall changes together"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "+1.2 %") {
		t.Errorf("an estimate whose interval includes 0 was stated as a change:\n%s", text)
	}
}
