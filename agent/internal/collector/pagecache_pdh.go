package collector

import (
	"context"
	"fmt"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/pdh"
)

// pdhCopyReadHits is \Cache\Copy Read Hits % (PERF_SAMPLE_FRACTION): First counts the copy
// reads served from the system file cache, Second all copy reads, both cumulative since boot.
// A copy read is one buffered read request the cache manager copies from its mapped views;
// a miss pages the data in from disk first.
var pdhCopyReadHits = pdh.Counter{Object: "Cache", Name: "Copy Read Hits %"}

func pdhFileCacheSpecs() []pdh.Spec { return []pdh.Spec{{Counter: pdhCopyReadHits}} }

// copyReads are the cumulative copy-read counts of one snapshot.
type copyReads struct{ Requests, Hits uint64 }

func copyReadsFromPDH(s pdh.Snapshot) (copyReads, error) {
	v, ok := s.Get(pdhCopyReadHits, pdh.NoInstance)
	if !ok {
		return copyReads{}, fmt.Errorf("page_cache: \\Cache\\Copy Read Hits %% missing from the snapshot")
	}
	if v.First < 0 || v.Second < v.First {
		return copyReads{}, fmt.Errorf("page_cache: \\Cache\\Copy Read Hits %% has %d hits of %d reads", v.First, v.Second)
	}
	return copyReads{Requests: uint64(v.Second), Hits: uint64(v.First)}, nil
}

// fileCacheCollector is the page_cache collector on Windows: the system file cache's copy reads
// as accesses and the copy reads that were not hits as misses. They count read requests, not
// pages (docs/metrics.md, "Windows"): the hit ratio compares with Linux's, the counts do not.
// Per-file counts are not available (no eBPF); those metrics are not sent.
type fileCacheCollector struct {
	read   func() (copyReads, error)
	prev   copyReads
	primed bool
}

var _ CapabilityReporter = (*fileCacheCollector)(nil)

func (c *fileCacheCollector) Collect(_ context.Context, sink Sink) error {
	cur, err := c.read()
	if err != nil {
		return err
	}
	prev, primed := c.prev, c.primed
	c.prev, c.primed = cur, true
	if !primed {
		return fmt.Errorf("page_cache: first sample sets the baseline: %w", ErrNoData)
	}
	if cur.Requests < prev.Requests || cur.Hits < prev.Hits {
		return fmt.Errorf("page_cache: copy-read counters went backwards; re-baselined: %w", ErrNoData)
	}
	requests, hits := cur.Requests-prev.Requests, cur.Hits-prev.Hits
	misses := uint64(0)
	if requests > hits { // the two halves are read together, but never send misses > accesses
		misses = requests - hits
	}
	sink.AddInt(catalogue.PageCacheAccesses, int64(requests))
	sink.AddInt(catalogue.PageCacheMisses, int64(misses))
	return nil
}

// Capability: the catalogue's page-cache capability is the eBPF program, which Windows lacks;
// the reason says where the numbers come from instead.
func (c *fileCacheCollector) Capability() Capability {
	return Capability{Name: "ebpf.page_cache", Reason: "Windows has no eBPF: spindle.page_cache.accesses and misses " +
		"come from the system file cache's copy-read counters (\\Cache\\Copy Read Hits %), in read requests rather " +
		"than pages, and per-file counts are not available"}
}

func (c *fileCacheCollector) Close() error { return nil }
