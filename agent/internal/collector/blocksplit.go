package collector

import (
	"context"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blocksplit"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

func init() {
	register("block_split", true, newBlockSplitCollector)
	registerCapability("block_split", "ebpf.block_split")
}

// blockSplitCollector counts split I/Os per disk.
type blockSplitCollector struct {
	ebpfLoad
	sysPath string
	probe   *blocksplit.Probe
	prev    map[bpf.Dev]uint64
}

var _ CapabilityReporter = (*blockSplitCollector)(nil)

func newBlockSplitCollector(opts Options) (Collector, error) {
	probe, err := blocksplit.Load()
	return &blockSplitCollector{ebpfLoad: newEBPFLoad("ebpf.block_split", opts, err),
		sysPath: opts.SysPath, probe: probe, prev: map[bpf.Dev]uint64{}}, nil
}

func (c *blockSplitCollector) Collect(_ context.Context, sink Sink) error {
	if err := c.unavailable(); err != nil {
		return err
	}
	cur, err := c.probe.Read()
	if err != nil {
		return err
	}
	names := blockDeviceNames(c.sysPath)
	for dev, n := range cur {
		if d := n - c.prev[dev]; d > 0 {
			sink.AddInt(catalogue.DiskSplitOperations, int64(d), deviceAttr(deviceName(names, dev)))
		}
	}
	c.prev = cur
	return nil
}

func (c *blockSplitCollector) Close() error {
	if c.probe == nil {
		return nil
	}
	return c.probe.Close()
}
