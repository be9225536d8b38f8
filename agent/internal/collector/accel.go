package collector

import (
	"context"
	"fmt"
	"log/slog"
	"sort"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/accel/memlatency"
	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/accel/writeopt"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

// AccelCollectorName is the accel collector's name in status and in spindle.agent.collector.*.
const AccelCollectorName = "accel"

// MaxManagedFileExtents bounds spindle.write_opt.managed_file.extents: the most fragmented
// managed files only, so a policy managing thousands of files cannot flood a batch.
const MaxManagedFileExtents = 20

// AccelSources give the accel collector the features the agent owns. A nil func is a feature
// this agent does not have (another OS, or it could not be created).
type AccelSources struct {
	// ReadCache returns the read cache's stats; Stats.Enabled says whether a policy enables it.
	ReadCache func() readcache.Stats
	// WriteOptimization returns write optimisation's stats (Extents limited to the files the
	// policy in force manages) and whether a policy enables it.
	WriteOptimization func() (writeopt.Stats, bool)
	// MemoryReadLatency returns the latest calibration of a page-cache read, false until one
	// succeeded.
	MemoryReadLatency func() (memlatency.Measurement, bool)
}

// accelCollector exports the acceleration features' Stats every tick, as docs/metrics.md
// ("Acceleration features") defines them: stocks as gauges at the end of the interval, flows
// as the delta of the features' cumulative counters since the previous tick. A feature no
// policy enables sends nothing. It is not in the registry: it reads features the run loop
// owns and the policy switches, not something agent.yaml configures. The memory-read latency
// is sent every tick once measured, whatever the policy: it is what a hit costs on this host,
// and the console weighs it against storage latency before a read cache is switched on too.
type accelCollector struct {
	sources AccelSources
	logger  *slog.Logger

	// The features' cumulative counters at the previous tick. Both features count from zero
	// when created, which is before this collector's first tick, so zero is the right baseline.
	readCache readCacheFlows
	writeOpt  writeOptFlows
	// lastProblem per feature, so a problem is logged once when it appears, not every tick.
	lastProblem map[string]string
}

type readCacheFlows struct {
	misses, hits, prefetched, droppedBehind, backoffs int64
	// The control group's counters (spindle.read_cache.managed.*, .control.*, .own.*).
	managedAccessed, managedMissed, controlAccessed, controlMissed, ownReads, ownPageHits int64
	// The same per hash bucket (spindle.read_cache.bucket.*).
	buckets [readcache.HoldoutBuckets]readcache.BucketCounts
}

type writeOptFlows struct {
	preallocated, trimmed, fragmentsPrevented, filesDefragmented             int64
	managedGrown, managedExtentsAdded, unmanagedGrown, unmanagedExtentsAdded int64
}

// NewAccel returns the collector of the acceleration features' statistics.
func NewAccel(sources AccelSources, logger *slog.Logger) Collector {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &accelCollector{sources: sources, logger: logger, lastProblem: map[string]string{}}
}

func (c *accelCollector) Collect(_ context.Context, sink Sink) error {
	sent := false
	if c.sources.ReadCache != nil {
		st := c.sources.ReadCache()
		sent = c.collectReadCache(st, sink) || sent
		c.noteProblem("read cache", st.Enabled, st.LastError)
	}
	if c.sources.WriteOptimization != nil {
		st, enabled := c.sources.WriteOptimization()
		sent = c.collectWriteOpt(st, enabled, sink) || sent
		c.noteProblem("write optimisation", enabled, st.LastError)
	}
	if c.sources.MemoryReadLatency != nil {
		if m, ok := c.sources.MemoryReadLatency(); ok { // not measured yet: nothing, never a zero
			sink.SetFloat(catalogue.ReadCacheMemoryReadLatency, m.Mean.Seconds())
			sink.SetInt(catalogue.ReadCacheMemoryReadLatencySamples, int64(m.Samples))
			sent = true
		}
	}
	if !sent {
		return fmt.Errorf("%w: no policy enables the read cache or write optimisation, and memory-read latency is not measured yet", ErrNoData)
	}
	return nil
}

// collectReadCache records the read cache's metrics when it is enabled; the counters move on
// either way, so a feature switched on again reports only what happened since.
func (c *accelCollector) collectReadCache(st readcache.Stats, sink Sink) bool {
	misses := advance(&c.readCache.misses, st.MissBytes)
	hits := advance(&c.readCache.hits, st.HitBytes)
	prefetched := advance(&c.readCache.prefetched, st.PrefetchedBytes)
	droppedBehind := advance(&c.readCache.droppedBehind, st.DroppedBehindBytes)
	backoffs := advance(&c.readCache.backoffs, st.BackoffEvents)
	flows := &c.readCache
	holdout := []struct {
		name  catalogue.IntCounter
		delta int64
	}{
		{catalogue.ReadCacheManagedAccessed, advance(&flows.managedAccessed, st.ManagedAccessedBytes)},
		{catalogue.ReadCacheManagedMissed, advance(&flows.managedMissed, st.ManagedMissedBytes)},
		{catalogue.ReadCacheControlAccessed, advance(&flows.controlAccessed, st.ControlAccessedBytes)},
		{catalogue.ReadCacheControlMissed, advance(&flows.controlMissed, st.ControlMissedBytes)},
		{catalogue.ReadCacheOwnReads, advance(&flows.ownReads, st.OwnReadBytes)},
		{catalogue.ReadCacheOwnPageHits, advance(&flows.ownPageHits, st.OwnPageHitBytes)},
	}
	buckets := c.advanceBuckets(st.Buckets)
	if !st.Enabled {
		return false
	}
	// The control group's counts travel together, and only where the page-cache program counted
	// them (Linux with eBPF): elsewhere nothing was held out, and nothing rather than a 0 is sent.
	if st.HoldoutMeasured {
		sink.SetInt(catalogue.ReadCacheHoldout, st.HoldoutPercent)
		for _, m := range holdout {
			sink.AddInt(m.name, m.delta)
		}
	}
	// Per bucket only while a control is drawn (there is nothing to compare otherwise), all 16
	// every time, zeros included: a bucket left out would look like one with no page groups.
	if st.HoldoutMeasured && st.BucketsMeasured && st.HoldoutPercent > 0 {
		for b, d := range buckets {
			bucket := attribute.Int(catalogue.AttrReadCacheBucket, b)
			sink.AddInt(catalogue.ReadCacheBucketManagedAccessed, d.ManagedAccessed, bucket)
			sink.AddInt(catalogue.ReadCacheBucketManagedMissed, d.ManagedMissed, bucket)
			sink.AddInt(catalogue.ReadCacheBucketControlAccessed, d.ControlAccessed, bucket)
			sink.AddInt(catalogue.ReadCacheBucketControlMissed, d.ControlMissed, bucket)
		}
	}
	sink.SetInt(catalogue.ReadCacheBudget, st.BudgetBytes)
	// Windows cannot measure residency, so neither resident bytes, misses nor scanners (whose
	// pages are dropped behind) are known there: nothing rather than a 0.
	if st.ResidencyMeasured {
		sink.SetInt(catalogue.ReadCacheResident, st.ResidentBytes)
		sink.AddInt(catalogue.ReadCacheMisses, misses)
		sink.AddInt(catalogue.ReadCacheDroppedBehind, droppedBehind)
	}
	sink.SetInt(catalogue.ReadCachePinned, st.PinnedBytes)
	sink.SetInt(catalogue.ReadCacheManagedFiles, int64(st.ManagedFiles))
	if st.HitsObserved { // mincore cannot see a read of a resident page: no hits rather than zero hits
		sink.AddInt(catalogue.ReadCacheHits, hits)
	}
	sink.AddInt(catalogue.ReadCachePrefetched, prefetched)
	sink.AddInt(catalogue.ReadCacheBackoffs, backoffs)
	return true
}

// advanceBuckets moves the per-bucket baselines to now and returns the deltas.
func (c *accelCollector) advanceBuckets(now [readcache.HoldoutBuckets]readcache.BucketCounts) [readcache.HoldoutBuckets]readcache.BucketCounts {
	var out [readcache.HoldoutBuckets]readcache.BucketCounts
	for b := range now {
		previous := &c.readCache.buckets[b]
		out[b] = readcache.BucketCounts{
			ManagedAccessed: advance(&previous.ManagedAccessed, now[b].ManagedAccessed),
			ManagedMissed:   advance(&previous.ManagedMissed, now[b].ManagedMissed),
			ControlAccessed: advance(&previous.ControlAccessed, now[b].ControlAccessed),
			ControlMissed:   advance(&previous.ControlMissed, now[b].ControlMissed),
		}
	}
	return out
}

func (c *accelCollector) collectWriteOpt(st writeopt.Stats, enabled bool, sink Sink) bool {
	preallocated := advance(&c.writeOpt.preallocated, st.PreallocatedBytes)
	trimmed := advance(&c.writeOpt.trimmed, st.TrimmedBytes)
	prevented := advance(&c.writeOpt.fragmentsPrevented, st.FragmentsPrevented)
	defragmented := advance(&c.writeOpt.filesDefragmented, st.FilesDefragmented)
	managedGrown := advance(&c.writeOpt.managedGrown, st.ManagedGrownBytes)
	managedAdded := advance(&c.writeOpt.managedExtentsAdded, st.ManagedExtentsAdded)
	unmanagedGrown := advance(&c.writeOpt.unmanagedGrown, st.UnmanagedGrownBytes)
	unmanagedAdded := advance(&c.writeOpt.unmanagedExtentsAdded, st.UnmanagedExtentsAdded)
	if !enabled {
		return false
	}
	sink.AddInt(catalogue.WriteOptPreallocated, preallocated)
	// What preallocation gave back unused: preallocated minus trimmed is what it still holds.
	sink.AddInt(catalogue.WriteOptTrimmed, trimmed)
	sink.AddInt(catalogue.WriteOptFragmentsPrevented, prevented)
	sink.AddInt(catalogue.WriteOptFilesDefragmented, defragmented)
	// The comparison group is measured only while directories are watched: otherwise nothing is
	// sent (not measured), never a 0.
	if st.GrowthWatched {
		sink.AddInt(catalogue.WriteOptManagedGrown, managedGrown)
		sink.AddInt(catalogue.WriteOptManagedExtentsAdded, managedAdded)
		sink.AddInt(catalogue.WriteOptUnmanagedGrown, unmanagedGrown)
		sink.AddInt(catalogue.WriteOptUnmanagedExtentsAdded, unmanagedAdded)
	}
	for _, f := range mostFragmented(st.Extents, MaxManagedFileExtents) {
		sink.SetInt(catalogue.WriteOptManagedFileExtents, int64(f.extents), attribute.String(catalogue.AttrFilePath, f.path))
	}
	return true
}

// advance moves a cumulative counter's baseline to now and returns the delta. A counter that
// went back (it never should: the features only add) re-baselines instead of sending a negative.
func advance(previous *int64, now int64) int64 {
	delta := now - *previous
	*previous = now
	return max(delta, 0)
}

// noteProblem logs a feature's LastError once when it appears or changes. It is not a collector
// error: the features keep it until the next policy, and the statistics are still right.
func (c *accelCollector) noteProblem(feature string, enabled bool, problem string) {
	if !enabled {
		problem = ""
	}
	if problem != "" && problem != c.lastProblem[feature] {
		c.logger.Warn("acceleration feature problem", "feature", feature, "problem", problem)
	}
	c.lastProblem[feature] = problem
}

type fileExtents struct {
	path    string
	extents int
}

// mostFragmented returns at most n files, most extents first (ties by path, so the series sent
// do not flap between ticks).
func mostFragmented(extents map[string]int, n int) []fileExtents {
	files := make([]fileExtents, 0, len(extents))
	for path, count := range extents {
		files = append(files, fileExtents{path, count})
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].extents != files[j].extents {
			return files[i].extents > files[j].extents
		}
		return files[i].path < files[j].path
	})
	return files[:min(n, len(files))]
}

func (c *accelCollector) Close() error { return nil }
