package blocklatency

import (
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blockio"
	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
)

// TestHistogramCountsDirectIO loads the real program, issues a known number of O_DIRECT reads
// and writes on a loop device, and finds them in that device's histograms.
func TestHistogramCountsDirectIO(t *testing.T) {
	bpftest.RequireRoot(t)
	loop := bpftest.NewLoop(t, 64<<20)
	p, err := Load()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer p.Close()

	// Read as the latency collector does: the disks' counts, then the histograms.
	var untimed blockio.Untimed
	read := func() (map[Key]Histogram, map[Key]uint64) {
		t.Helper()
		completed := blockio.Completed("/sys/block")
		hists, err := p.Read()
		if err != nil {
			t.Fatal(err)
		}
		timed := map[Key]uint64{}
		for key, h := range hists {
			timed[key] = h.Count()
		}
		return hists, untimed.Add(completed, timed)
	}
	before, _ := read()
	const writes, reads, size = 200, 300, 4096
	buf := bpftest.AlignedBuffer(t, size)
	start := time.Now()
	loop.WriteDirect(t, buf, 0, writes)
	loop.ReadDirect(t, buf, 0, reads)
	elapsed := time.Since(start)
	after, missed := read()

	for op, want := range map[bpf.Op]uint64{bpf.OpWrite: writes, bpf.OpRead: reads} {
		key := Key{Dev: loop.Dev, Op: op}
		d := after[key].Sub(before[key])
		// Something else (udev probing a new device) may add a few reads; never fewer. A
		// completion the kernel ran no program for is untimed, and counted as such.
		if n := d.Count() + missed[key]; n < want || n > want+64 {
			t.Errorf("%s: %d I/Os in the histogram and %d untimed, want %d", op, d.Count(), missed[key], want)
			continue
		}
		if d.Count() == 0 {
			continue
		}
		mean := time.Duration(d.SumNanos / d.Count())
		if mean <= 0 || mean > elapsed/time.Duration(want)*2+time.Millisecond {
			t.Errorf("%s: mean latency %s is implausible (whole run %s for %d I/Os)", op, mean, elapsed, want)
		}
		// The slots must agree with the exact sum: each I/O lies between its slot's bounds.
		lowest, highest := slotBoundsNanos(d)
		if d.SumNanos < lowest || d.SumNanos > highest {
			t.Errorf("%s: sum %d ns outside what the slots allow [%d, %d]", op, d.SumNanos, lowest, highest)
		}
		t.Logf("%s: %d I/Os, mean %s, slots %v", op, d.Count(), mean, d.Counts)
	}
}

func TestBoundsArePowersOfTwoMicros(t *testing.T) {
	b := BoundsMicros()
	if len(b) != Slots-1 || b[0] != 1 || b[1] != 2 || b[26] != 1<<26 {
		t.Fatalf("bounds %v", b)
	}
}

// slotBoundsNanos is the least and most the latencies in d can add up to given their slots.
func slotBoundsNanos(d Histogram) (lowest, highest uint64) {
	bounds := BoundsMicros()
	for i, n := range d.Counts {
		if i > 0 {
			lowest += n * uint64(bounds[i-1]*1000)
		}
		if i < len(bounds) {
			highest += n * uint64(bounds[i]*1000)
		} else {
			highest = ^uint64(0)
		}
	}
	return lowest, highest
}
