package collector

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The policy's telemetry.fragmentationScan adds roots to a running scanner at once and sets
// the period while it names paths.
func TestFragmentationScansThePolicysPathsBesidesAgentYAMLs(t *testing.T) {
	configured, fromPolicy := t.TempDir(), t.TempDir()
	for _, dir := range []string{configured, fromPolicy} {
		if err := os.WriteFile(filepath.Join(dir, "data"), make([]byte, 64<<10), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	built, err := newFragmentationCollector(Options{Fragmentation: FragmentationOptions{
		Paths: []string{configured}, Period: time.Hour, MaxFilesPerSecond: 1000, NoDetection: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	c := built.(*fragmentationCollector)
	if _, err := firstScan(t, c); err != nil {
		t.Fatal(err)
	}

	// A new path is scanned now, not an hour later, together with agent.yaml's.
	c.SetPolicyScan([]string{fromPolicy}, 2*time.Hour)
	sink := waitForSeries(t, c, "gauge spindle.fragmentation.files[{file}]{spindle.scan.root="+fromPolicy+"}")
	if got := sink.series["gauge spindle.fragmentation.files[{file}]{spindle.scan.root="+configured+"}"]; got != "1" {
		t.Fatalf("agent.yaml's path is no longer scanned: %q\n%s", got, sink.render())
	}
	if c.period() != 2*time.Hour {
		t.Fatalf("period %s with policy paths, want the policy's 2h", c.period())
	}

	// The period takes effect for the pass being waited for.
	passes := c.passCount()
	c.SetPolicyScan([]string{fromPolicy}, 100*time.Millisecond)
	deadline := time.Now().Add(60 * time.Second)
	for c.passCount() < passes+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if c.passCount() < passes+2 {
		t.Fatalf("passes %d → %d in 60 s with a 100 ms policy period", passes, c.passCount())
	}

	// Without policy paths agent.yaml's period applies again.
	c.SetPolicyScan(nil, 100*time.Millisecond)
	if c.period() != time.Hour {
		t.Fatalf("period %s without policy paths, want agent.yaml's 1h", c.period())
	}

	// A policy path that is missing on this server is the collector's error, naming the setting.
	c.SetPolicyScan([]string{filepath.Join(fromPolicy, "gone")}, time.Hour)
	deadline = time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		err := c.Collect(context.Background(), newRecordingSink())
		if err != nil && !errors.Is(err, ErrNoData) {
			if !strings.Contains(err.Error(), "telemetry.fragmentationScan.paths of the policy") {
				t.Fatalf("error %v does not name the policy setting", err)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("a missing policy path was never reported")
}

func waitForSeries(t *testing.T, c Collector, series string) *recordingSink {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sink := newRecordingSink()
		_ = c.Collect(context.Background(), sink)
		if _, ok := sink.series[series]; ok {
			return sink
		}
	}
	t.Fatalf("%s never appeared", series)
	return nil
}

func (c *fragmentationCollector) passCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.passes
}
