package collector

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

func init() {
	register("page_cache", true, newPageCacheCollector)
	registerCapability("page_cache", "ebpf.page_cache")
}

// pageCacheCollector reports page-cache accesses and misses system-wide and for the files
// with the most accesses in the interval.
type pageCacheCollector struct {
	ebpfLoad
	probe  *pagecache.Probe
	prev   pagecache.Counts
	files  *topFiles
	access fileAccesses // the read cache's view of the same program (pagecache_access.go)
	groups fileGroups   // its control group's counts (pagecache_groups.go)
}

var _ CapabilityReporter = (*pageCacheCollector)(nil)

func newPageCacheCollector(opts Options) (Collector, error) {
	if c := windowsFileCacheCollector(); c != nil {
		return c, nil // Windows: the \Cache counters (pagecache_pdh.go), there is no eBPF
	}
	probe, err := pagecache.Load()
	return &pageCacheCollector{ebpfLoad: newEBPFLoad("ebpf.page_cache", opts, err), probe: probe,
		files: newTopFiles(opts.EBPF.PageCacheTopFiles, opts.ProcPath)}, nil
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

	perFile, err := c.probe.ReadFiles()
	if err != nil {
		return err
	}
	// Only files read in the interval: a file leaving the top list is no zero, just unranked.
	for _, f := range c.files.next(perFile) {
		path := attribute.String(catalogue.AttrFilePath, f.path)
		sink.AddInt(catalogue.PageCacheFileAccesses, int64(f.accesses), path)
		sink.AddInt(catalogue.PageCacheFileMisses, int64(f.misses), path)
	}
	return nil
}

func (c *pageCacheCollector) Close() error {
	if c.probe == nil {
		return nil
	}
	return c.probe.Close()
}
