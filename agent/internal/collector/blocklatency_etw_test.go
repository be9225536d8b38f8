package collector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blocklatency"
	"github.com/spindle-io/spindle/agent/internal/etw"
)

// The ETW session itself runs on Windows only (none here); its histograms are fed directly.
func TestETWLatencyDeltas(t *testing.T) {
	h := etw.NewHistograms(10_000_000)
	c := &etwLatencyCollector{histograms: h.Snapshot, prev: map[etw.Key]blocklatency.Histogram{}}
	h.Add(etw.DiskEvent{Disk: 0, Op: bpf.OpRead, ResponseTicks: 1500}) // 150 us: slot 8
	first := newRecordingSink()
	if err := c.Collect(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	h.Add(etw.DiskEvent{Disk: 0, Op: bpf.OpRead, ResponseTicks: 25000})  // 2.5 ms: slot 12
	h.Add(etw.DiskEvent{Disk: 2, Op: bpf.OpFlush, ResponseTicks: 80000}) // 8 ms: slot 13
	second := newRecordingSink()
	if err := c.Collect(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	// 2.5 ms in slot 12 and 8 ms in slot 13 (upper bounds 4096 and 8192 us).
	want := "histogram spindle.disk.io.latency[s]{disk.io.direction=read,system.device=PhysicalDrive0} %s sum=0.0025\n" +
		"histogram spindle.disk.io.latency[s]{disk.io.direction=write,spindle.disk.operation=flush,system.device=PhysicalDrive2} %s sum=0.008\n"
	want = fmt.Sprintf(want, slotsWithOne(12), slotsWithOne(13))
	if got := second.render(); got != want {
		t.Fatalf("second interval (only its own I/Os)\n got %s\nwant %s", got, want)
	}
	if !c.Capability().Available {
		t.Fatal("a running session is an available capability")
	}
}

func slotsWithOne(slot int) string {
	counts := make([]uint64, blocklatency.Slots)
	counts[slot] = 1
	return fmt.Sprint(counts)
}

func TestETWLatencyWhenTheSessionDidNotStart(t *testing.T) {
	c := &etwLatencyCollector{startErr: errors.New("the NT Kernel Logger session is in use by another tool")}
	err := c.Collect(context.Background(), newRecordingSink())
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("want ErrUnsupported, got %v", err)
	}
	if cap := c.Capability(); cap.Available || !strings.Contains(cap.Reason, "in use by another tool") {
		t.Fatalf("the capability must carry the reason: %+v", cap)
	}
}
