package collector

import (
	"context"

	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

func init() {
	register("page_cache", true, newPageCacheCollector)
	registerCapability("page_cache", "ebpf.page_cache")
}

// pageCacheCollector reports system-wide page-cache accesses and misses.
type pageCacheCollector struct {
	ebpfLoad
	probe *pagecache.Probe
	prev  pagecache.Counts
}

var _ CapabilityReporter = (*pageCacheCollector)(nil)

func newPageCacheCollector(opts Options) (Collector, error) {
	probe, err := pagecache.Load()
	return &pageCacheCollector{ebpfLoad: newEBPFLoad("ebpf.page_cache", opts, err), probe: probe}, nil
}

func (c *pageCacheCollector) Collect(_ context.Context, sink Sink) error {
	if err := c.unavailable(); err != nil {
		return err
	}
	cur, err := c.probe.Read()
	if err != nil {
		return err
	}
	accesses, misses := cur.Sub(c.prev).AccessesAndMisses()
	c.prev = cur
	// Both every interval, zeros included, so a ratio never divides a number by a gap.
	sink.AddInt(catalogue.PageCacheAccesses, int64(accesses))
	sink.AddInt(catalogue.PageCacheMisses, int64(misses))
	return nil
}

func (c *pageCacheCollector) Close() error {
	if c.probe == nil {
		return nil
	}
	return c.probe.Close()
}
