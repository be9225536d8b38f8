package collector

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spindle-io/spindle/agent/internal/bpf/blocklatency"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/etw"
)

// etwLatencyCollector is block_latency on Windows: the kernel logger's disk I/O completions
// (internal/etw) in the same buckets, per disk (PhysicalDrive<N>, as diskstats names them) and
// read/write/flush. The session starts when the collector is built, so the capability is known
// before the first tick.
type etwLatencyCollector struct {
	histograms func() map[etw.Key]blocklatency.Histogram // nil when the session did not start
	startErr   error
	close      func() error
	prev       map[etw.Key]blocklatency.Histogram
}

var _ CapabilityReporter = (*etwLatencyCollector)(nil)

func (c *etwLatencyCollector) Collect(_ context.Context, sink Sink) error {
	if c.startErr != nil {
		return fmt.Errorf("block_latency: %w: %w", ErrUnsupported, c.startErr)
	}
	cur := c.histograms()
	for key, h := range cur {
		d := h.Sub(c.prev[key])
		if d.Count() == 0 {
			continue
		}
		sink.AddHistogram(catalogue.DiskIOLatency, HistogramDelta{BucketCounts: d.Counts[:], Sum: float64(d.SumNanos) / 1e9},
			latencyAttrs("PhysicalDrive"+strconv.FormatUint(uint64(key.Disk), 10), key.Op)...)
	}
	c.prev = cur
	return nil
}

// Capability: the catalogue names the latency histograms after the eBPF program; on Windows
// they come from ETW, available while the session runs.
func (c *etwLatencyCollector) Capability() Capability {
	if c.startErr != nil {
		return Capability{Name: "ebpf.block_latency", Reason: "Windows (ETW): " + c.startErr.Error()}
	}
	return Capability{Name: "ebpf.block_latency", Available: true}
}

func (c *etwLatencyCollector) Close() error {
	if c.close == nil {
		return nil
	}
	return c.close()
}
