package collector

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// scriptedCollector is a collector written for the runner test: the runner is under test.
type scriptedCollector struct {
	err   error
	sleep time.Duration
}

func (s scriptedCollector) Collect(ctx context.Context, _ Sink) error {
	time.Sleep(s.sleep)
	return s.err
}
func (scriptedCollector) Close() error { return nil }

func TestRunnerReportsEachCollector(t *testing.T) {
	r := NewRunner([]Named{
		{"fine", scriptedCollector{sleep: 50 * time.Millisecond}},
		{"baseline", scriptedCollector{err: fmt.Errorf("first: %w", ErrNoData), sleep: 50 * time.Millisecond}},
		{"windowsonly", scriptedCollector{err: fmt.Errorf("x: %w", ErrUnsupported)}},
		{"broken", scriptedCollector{err: errors.New("permission denied"), sleep: 50 * time.Millisecond}},
	}, discardLogger())
	sink := newRecordingSink()
	start := time.Now()
	results := r.Collect(context.Background(), sink)
	if elapsed := time.Since(start); elapsed > 140*time.Millisecond {
		t.Errorf("collectors ran one after another (%v); they must run concurrently", elapsed)
	}
	wantStates := map[string]State{"fine": StateOK, "baseline": StateOK, "windowsonly": StateUnsupported, "broken": StateError}
	for _, res := range results {
		if res.State != wantStates[res.Name] {
			t.Errorf("%s: state %s, want %s", res.Name, res.State, wantStates[res.Name])
		}
	}
	for name, wantSuccess := range map[string]string{"fine": "1", "baseline": "1", "windowsonly": "0", "broken": "0"} {
		key := fmt.Sprintf("gauge spindle.agent.collector.success[1]{collector=%s}", name)
		if got := sink.series[key]; got != wantSuccess {
			t.Errorf("%s success = %q, want %s", name, got, wantSuccess)
		}
		durKey := fmt.Sprintf("gauge spindle.agent.collector.duration[s]{collector=%s}", name)
		if _, ok := sink.series[durKey]; !ok {
			t.Errorf("%s: no duration recorded", name)
		}
	}
}

func TestBuildRejectsUnknownCollector(t *testing.T) {
	if _, err := Build([]string{"diskstats", "nope"}, Options{Logger: discardLogger()}); err == nil {
		t.Fatal("want an error for an unknown collector")
	}
	built, err := Build([]string{"meminfo"}, Options{Logger: discardLogger()})
	if err != nil || len(built) != 1 || built[0].Name != "meminfo" {
		t.Fatalf("Build = %v, %v", built, err)
	}
}
