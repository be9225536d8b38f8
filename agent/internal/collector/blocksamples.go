package collector

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/bpf/blocksamples"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

func init() {
	register("block_samples", true, newBlockSamplesCollector)
	registerCapability("block_samples", "ebpf.block_samples")
}

// Defaults for the sampled block stream: 1 in 64 blocks, 16,384 samples (768 KiB) in the ring.
const (
	DefaultBlockSampleEvery    = 64
	DefaultBlockSampleCapacity = 16384
)

// blockSamplesCollector keeps the sampled block stream running into its bounded ring and
// reports how many samples were kept and dropped. The samples themselves are not exported:
// miss-ratio-curve estimation will read them from Ring.
type blockSamplesCollector struct {
	ebpfLoad
	stream   *blocksamples.Stream
	prevRing blocksamples.RingStats
	prevLost uint64
}

var _ CapabilityReporter = (*blockSamplesCollector)(nil)

func newBlockSamplesCollector(opts Options) (Collector, error) {
	settings := blocksamples.Settings{SampleEvery: opts.EBPF.SampleEvery, Capacity: opts.EBPF.SampleCapacity}
	if settings.SampleEvery == 0 {
		settings.SampleEvery = DefaultBlockSampleEvery
	}
	if settings.Capacity == 0 {
		settings.Capacity = DefaultBlockSampleCapacity
	}
	stream, err := blocksamples.Start(settings)
	return &blockSamplesCollector{ebpfLoad: newEBPFLoad("ebpf.block_samples", opts, err), stream: stream}, nil
}

// Ring is the bounded ring of samples, nil when the program did not load.
func (c *blockSamplesCollector) Ring() *blocksamples.Ring {
	if c.stream == nil {
		return nil
	}
	return c.stream.Ring()
}

func (c *blockSamplesCollector) Collect(_ context.Context, sink Sink) error {
	if err := c.unavailable(); err != nil {
		return err
	}
	lost, err := c.stream.Lost()
	if err != nil {
		return err
	}
	ring := c.stream.Ring().Stats()
	reason := func(r string) attribute.KeyValue { return attribute.String(catalogue.AttrDropReason, r) }
	sink.AddInt(catalogue.BlockSamplesKept, int64(ring.Kept-c.prevRing.Kept))
	sink.AddInt(catalogue.BlockSamplesDropped, int64(lost-c.prevLost), reason(catalogue.DropKernelBufferFull))
	sink.AddInt(catalogue.BlockSamplesDropped, int64(ring.Overwritten-c.prevRing.Overwritten), reason(catalogue.DropRingOverwritten))
	c.prevRing, c.prevLost = ring, lost
	return nil
}

func (c *blockSamplesCollector) Close() error {
	if c.stream == nil {
		return nil
	}
	return c.stream.Close()
}
