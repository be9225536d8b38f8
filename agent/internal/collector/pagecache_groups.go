package collector

import (
	"os"
	"slices"
	"sync"

	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// The page-cache collector counts the read cache's control group for it (readcache.GroupSource):
// the same program splits the managed files' events by page group (spindle_holdout.h).

var _ readcache.GroupSource = (*pageCacheCollector)(nil)

// fileGroups keeps the read cache's previous group reading per file and the list last sent to
// the kernel, so an unchanged list costs nothing.
type fileGroups struct {
	mu     sync.Mutex
	listed []pagecache.FileID // sorted
	prev   map[pagecache.FileID]pagecache.HoldoutCounts
	// prevBuckets: the bucket counts at the previous BucketCounts call (cumulative since Load).
	prevBuckets [pagecache.HoldoutBuckets]pagecache.HoldoutBucket
}

// holdoutGroupShift is log2 of the pages in one readcache.HoldoutGroupBytes group.
func holdoutGroupShift() uint32 {
	shift := uint32(0)
	for (1<<shift)*os.Getpagesize() < readcache.HoldoutGroupBytes {
		shift++
	}
	return shift
}

func (c *pageCacheCollector) SetHoldout(h readcache.Holdout) error {
	return c.probe.SetHoldout(pagecache.HoldoutDraw{Salt: h.Salt, Threshold: h.Threshold, GroupShift: holdoutGroupShift()})
}

func (c *pageCacheCollector) SetCacheThread(tid int) error {
	return c.probe.SetCacheThread(uint32(tid)) //nolint:gosec // a thread id is a positive int32
}

// GroupCounts lists files in the kernel (when the list changed) and returns each one's pages
// since the previous call. A miss is a page added less a page dirtied, floored at zero per
// file and interval (not clamped to the accesses: a page read ahead is a storage read before
// anybody reads it).
func (c *pageCacheCollector) GroupCounts(files []readcache.FileKey) (map[readcache.FileKey]readcache.GroupCounts, error) {
	ids := make([]pagecache.FileID, len(files))
	for i, f := range files {
		ids[i] = pagecache.FileID{Dev: f.Dev, Ino: f.Ino}
	}
	slices.SortFunc(ids, pagecache.CompareFileIDs)
	ids = slices.Compact(ids)
	g := &c.groups
	g.mu.Lock()
	defer g.mu.Unlock()
	if !slices.Equal(ids, g.listed) {
		if err := c.probe.TrackHoldoutFiles(ids); err != nil {
			return nil, err
		}
		g.listed = ids
	}
	current, err := c.probe.ReadHoldout(ids)
	if err != nil {
		return nil, err
	}
	if g.prev == nil {
		g.prev = map[pagecache.FileID]pagecache.HoldoutCounts{}
	}
	out := make(map[readcache.FileKey]readcache.GroupCounts, len(current))
	for id, cur := range current {
		earlier, seen := g.prev[id]
		if !seen || !cur.Covers(earlier) {
			earlier = pagecache.HoldoutCounts{} // listed again: counted from zero
		}
		d := cur.Sub(earlier)
		out[readcache.FileKey{Dev: id.Dev, Ino: id.Ino}] = readcache.GroupCounts{
			ManagedAccessed: int64(d.Managed.Read + d.Managed.Faulted), ManagedMissed: missedPages(d.Managed), //nolint:gosec // page counts
			ControlAccessed: int64(d.Control.Read + d.Control.Faulted), ControlMissed: missedPages(d.Control), //nolint:gosec // page counts
			OwnAdded: int64(d.OwnAdded), OwnHits: int64(d.OwnHits), //nolint:gosec // page counts
		}
	}
	g.prev = current
	return out, nil
}

// The kernel's buckets are the read cache's: a compile error here if the two counts part.
var _ = [1]struct{}{}[readcache.HoldoutBuckets-pagecache.HoldoutBuckets]

// BucketCounts returns both groups' pages per hash bucket since the previous call, misses as
// GroupCounts derives them (added less dirtied, floored at zero per bucket and interval).
func (c *pageCacheCollector) BucketCounts() ([readcache.HoldoutBuckets]readcache.BucketCounts, error) {
	var out [readcache.HoldoutBuckets]readcache.BucketCounts
	current, err := c.probe.ReadHoldoutBuckets()
	if err != nil {
		return out, err
	}
	g := &c.groups
	g.mu.Lock()
	defer g.mu.Unlock()
	for b := range out {
		d := current[b].Sub(g.prevBuckets[b])
		out[b] = readcache.BucketCounts{
			ManagedAccessed: int64(d.Managed.Read + d.Managed.Faulted), ManagedMissed: missedPages(d.Managed), //nolint:gosec // page counts
			ControlAccessed: int64(d.Control.Read + d.Control.Faulted), ControlMissed: missedPages(d.Control), //nolint:gosec // page counts
		}
	}
	g.prevBuckets = current
	return out, nil
}

func missedPages(c pagecache.Counts) int64 {
	if c.Added <= c.Dirtied {
		return 0
	}
	return int64(c.Added - c.Dirtied) //nolint:gosec // a page count
}
