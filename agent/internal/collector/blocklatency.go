package collector

import (
	"context"
	"path/filepath"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blockio"
	"github.com/spindle-io/spindle/agent/internal/bpf/blocklatency"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

func init() {
	register("block_latency", true, newBlockLatencyCollector)
	registerCapability("block_latency", "ebpf.block_latency")
}

// blockLatencyCollector exports the kernel's per-device latency histograms as OTLP
// histograms of the interval's I/Os, and the I/Os the disks completed that the histograms miss.
type blockLatencyCollector struct {
	ebpfLoad
	sysPath string
	probe   *blocklatency.Probe
	prev    map[blocklatency.Key]blocklatency.Histogram
	untimed blockio.Untimed
}

var _ CapabilityReporter = (*blockLatencyCollector)(nil)

func newBlockLatencyCollector(opts Options) (Collector, error) {
	if c := windowsDiskLatencyCollector(opts); c != nil {
		return c, nil // Windows: ETW (blocklatency_etw.go), there is no eBPF
	}
	probe, err := blocklatency.Load()
	return &blockLatencyCollector{ebpfLoad: newEBPFLoad("ebpf.block_latency", opts, err),
		sysPath: opts.SysPath, probe: probe, prev: map[blocklatency.Key]blocklatency.Histogram{}}, nil
}

func (c *blockLatencyCollector) Collect(_ context.Context, sink Sink) error {
	if err := c.unavailable(); err != nil {
		return err
	}
	// The disks' own counts first: a reading of the histograms taken after them holds every
	// timed I/O the counts hold (blockio.Untimed).
	completed := blockio.Completed(filepath.Join(c.sysPath, "block"))
	cur, err := c.probe.Read()
	if err != nil {
		return err
	}
	names := blockDeviceNames(c.sysPath)
	timed := make(map[blocklatency.Key]uint64, len(cur))
	for key, h := range cur {
		timed[key] = h.Count()
	}
	sent := make(map[blocklatency.Key]bool, len(cur))
	for key, h := range cur {
		d := h.Sub(c.prev[key])
		if d.Count() == 0 {
			continue
		}
		sent[key] = true
		sink.AddHistogram(catalogue.DiskIOLatency,
			HistogramDelta{BucketCounts: d.Counts[:], Sum: float64(d.SumNanos) / 1e9},
			latencyAttrs(deviceName(names, key.Dev), key.Op)...)
	}
	// Each histogram sent comes with its untimed count, 0 included, so the gateway can tell
	// "none untimed" from "not measured" (flushes, bio-based disks, a disk's first reading);
	// other disks and operations only when some went untimed.
	for key, n := range c.untimed.Add(completed, timed) {
		if n > 0 || sent[key] {
			sink.AddInt(catalogue.DiskIOUntimed, int64(n), latencyAttrs(deviceName(names, key.Dev), key.Op)...)
		}
	}
	c.prev = cur
	return nil
}

// latencyAttrs: reads are direction read; writes, flushes and discards direction write, the
// latter two with spindle.disk.operation so they do not blur the write latency.
func latencyAttrs(device string, op bpf.Op) []attribute.KeyValue {
	attrs := []attribute.KeyValue{deviceAttr(device)}
	switch op {
	case bpf.OpRead:
		return append(attrs, attribute.String(catalogue.AttrDirection, catalogue.DirectionRead))
	case bpf.OpWrite:
		return append(attrs, attribute.String(catalogue.AttrDirection, catalogue.DirectionWrite))
	default:
		return append(attrs, attribute.String(catalogue.AttrDirection, catalogue.DirectionWrite),
			attribute.String(catalogue.AttrOperation, op.String()))
	}
}

func (c *blockLatencyCollector) Close() error {
	if c.probe == nil {
		return nil
	}
	return c.probe.Close()
}
