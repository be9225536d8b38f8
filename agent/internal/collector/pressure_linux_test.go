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

// pressureAt is a pressure collector whose proc path can be switched between ticks.
func pressureAt(t *testing.T, proc *string) *pressureCollector {
	t.Helper()
	c, err := newPressureCollector(Options{ProcPath: "/nonexistent"})
	if err != nil {
		t.Fatal(err)
	}
	pc := c.(*pressureCollector)
	pc.read = func(resource string) (map[stallKey]uint64, error) {
		return pressureSource(Options{ProcPath: *proc})(resource)
	}
	return pc
}

func TestPressureDeltasGolden(t *testing.T) {
	proc := "testdata/proc-pressure-tick1"
	c := pressureAt(t, &proc)
	first := newRecordingSink()
	if err := c.Collect(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	if len(first.series) != 0 {
		t.Fatalf("the first tick only sets the baseline, got %v", first.series)
	}
	proc = "testdata/proc-pressure-tick2"
	second := newRecordingSink()
	if err := c.Collect(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "pressure-tick2.golden", second.render())
	// By hand: memory some 3,500,000 - 1,000,000 µs = 2.5 s; io full unchanged = 0 s.
	if got := second.series["counter spindle.pressure.stall_time[s]{spindle.pressure.resource=memory,spindle.pressure.scope=some}"]; got != "2.5" {
		t.Errorf("memory some = %s, want 2.5", got)
	}
}

func TestPressureCounterGoingBackRebaselines(t *testing.T) {
	proc := "testdata/proc-pressure-tick2"
	c := pressureAt(t, &proc)
	_ = c.Collect(context.Background(), newRecordingSink())
	proc = "testdata/proc-pressure-tick1" // three counters lower (as after a VM snapshot restore), io full equal
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	want := "counter spindle.pressure.stall_time[s]{spindle.pressure.resource=io,spindle.pressure.scope=full} 0\n"
	if got := sink.render(); got != want {
		t.Fatalf("a counter going back must only re-baseline; got\n%s", got)
	}
}

func TestPressureMissingIsACapabilityNotAnError(t *testing.T) {
	c, _ := newPressureCollector(Options{ProcPath: t.TempDir()})
	err := c.Collect(context.Background(), newRecordingSink())
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("missing PSI: %v, want ErrUnsupported", err)
	}
	capability := c.(CapabilityReporter).Capability()
	if capability.Available || capability.Name != "psi.pressure" || !strings.Contains(capability.Reason, "psi=1") {
		t.Fatalf("capability %+v", capability)
	}
	garbled := t.TempDir()
	if err := os.MkdirAll(filepath.Join(garbled, "pressure"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range pressureResources {
		if err := os.WriteFile(filepath.Join(garbled, "pressure", r), []byte("some total=x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ = newPressureCollector(Options{ProcPath: garbled})
	if err := c.Collect(context.Background(), newRecordingSink()); err == nil || errors.Is(err, ErrUnsupported) {
		t.Fatalf("a garbled file is an error, got %v", err)
	}
}

func TestPressureOnTheRealProc(t *testing.T) {
	if _, err := os.Stat("/proc/pressure/io"); err != nil {
		t.Skip("this kernel has no PSI")
	}
	c, _ := newPressureCollector(Options{ProcPath: "/proc"})
	if capability := c.(CapabilityReporter).Capability(); !capability.Available {
		t.Fatalf("capability %+v", capability)
	}
	if err := c.Collect(context.Background(), newRecordingSink()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	for _, resource := range pressureResources {
		for _, scope := range []string{"some", "full"} {
			key := "counter spindle.pressure.stall_time[s]{spindle.pressure.resource=" + resource + ",spindle.pressure.scope=" + scope + "}"
			if _, ok := sink.series[key]; !ok {
				t.Errorf("missing %s in %v", key, sink.series)
			}
		}
	}
}
