package collector

import (
	"sync"

	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// FileAccessSource is the page-cache collector while its eBPF program runs: the read cache
// asks it for the page accesses and misses of the files it manages, so that
// spindle.read_cache.hits is measured (a read of a resident page is invisible to mincore).
type FileAccessSource interface {
	readcache.AccessSource
	// Measuring is false when the program did not load: hits are then not measured at all,
	// which the read cache must report as such, never as zero.
	Measuring() bool
}

var _ FileAccessSource = (*pageCacheCollector)(nil)

// fileAccesses keeps the read cache's own previous reading per file, apart from the top-files
// list's, since the two read the program's map at different moments.
type fileAccesses struct {
	mu   sync.Mutex
	prev map[pagecache.FileID]pagecache.Counts
}

func (c *pageCacheCollector) Measuring() bool { return c.unavailable() == nil }

// FileAccesses returns, per path, the accesses and misses since the previous call. A file new
// to the program's map (or back after an eviction) counts from zero; a file the map does not
// hold had no page-cache activity in the interval.
func (c *pageCacheCollector) FileAccesses(paths []string) map[string]readcache.FileAccess {
	if !c.Measuring() {
		return nil
	}
	perFile, err := c.probe.ReadFiles()
	if err != nil {
		return nil
	}
	c.access.mu.Lock()
	defer c.access.mu.Unlock()
	if c.access.prev == nil {
		c.access.prev = map[pagecache.FileID]pagecache.Counts{}
	}
	out := make(map[string]readcache.FileAccess, len(paths))
	seen := make(map[pagecache.FileID]bool, len(paths))
	for _, path := range paths {
		id, ok := statFileID(path)
		if !ok {
			continue
		}
		seen[id] = true
		cur, held := perFile.Get(id)
		if !held {
			continue
		}
		earlier := c.access.prev[id]
		if !covers(cur, earlier) {
			earlier = pagecache.Counts{} // the map evicted and re-added the file
		}
		c.access.prev[id] = cur
		accesses, misses := cur.Sub(earlier).AccessesAndMisses()
		out[path] = readcache.FileAccess{AccessedPages: int64(accesses), MissedPages: int64(misses)}
	}
	for id := range c.access.prev {
		if !seen[id] {
			delete(c.access.prev, id) // the file left the managed set: bounded by the set
		}
	}
	return out
}
