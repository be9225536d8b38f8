//go:build linux || windows

package readcache

import (
	"context"
	"errors"
	"io/fs"
	"runtime"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel"
	"github.com/spindle-io/spindle/agent/internal/memlimit"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// Sample runs one sampling step (Run calls it every SampleInterval; tests call it directly).
func (f *Feature) Sample(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.policy.Enabled {
		return
	}
	if f.drawn.Active() {
		// What this goroutine's thread brings into the page cache while it samples is the cache's
		// own (prefetch, pins): the page-cache program counts it apart from both groups.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := f.groups.SetCacheThread(currentThreadID()); err == nil {
			defer func() { _ = f.groups.SetCacheThread(0) }()
		}
	}
	now := time.Now()
	elapsed := f.cfg.SampleInterval.Seconds()
	if !f.lastSample.IsZero() {
		elapsed = now.Sub(f.lastSample).Seconds()
	}
	f.lastSample = now
	f.stats.Samples++

	snapshot, err := f.memory.Read()
	if err != nil {
		f.stats.LastError = "cannot measure available memory: " + err.Error()
		return
	}
	if now.Sub(f.lastRescan) >= f.cfg.RescanInterval {
		f.rescan(now)
	}
	pinnedBytes := f.pinnedBytes()
	// Locked pages are not available to the kernel any more, but they are the cache's to give.
	budget := policy.EffectiveReadCacheBudgetBytes(f.policy, snapshot.AvailableBytes()+pinnedBytes)
	pressure := snapshot.LowMemory ||
		(snapshot.PressureKnown() && snapshot.PressureSomeAvg10 > f.cfg.PressureThresholdPercent)
	belowFloor := snapshot.AvailableBytes() < f.policy.FreeMemoryFloorBytes

	f.observe(ctx, elapsed)

	held := f.heldBytes()
	target := budget
	if pressure {
		target = min(budget, held/2)
	}
	// Holding more than the budget allows means memory got scarcer: give it back at once.
	shrinking := pressure || belowFloor || held > target
	if shrinking {
		if !f.stats.InBackoff {
			f.stats.BackoffEvents++
			f.cfg.Logger.Info("read cache backing off", "available_bytes", snapshot.AvailableBytes(),
				"floor_bytes", f.policy.FreeMemoryFloorBytes, "pressure_some_avg10", snapshot.PressureSomeAvg10,
				"low_memory", snapshot.LowMemory,
				"budget_bytes", budget, "held_bytes", held)
		}
		f.holdSamples = f.cfg.BackoffHoldSamples
	} else if f.holdSamples > 0 {
		f.holdSamples--
	}
	f.stats.InBackoff = shrinking || f.holdSamples > 0

	heats := make(map[string]*fileHeat, len(f.files))
	for path, t := range f.files {
		heats[path] = &t.fileHeat
	}
	previous := f.hotSet
	hot := rankHotSet(heats, f.pinOrder, target)
	f.hotSet = make(map[string]bool, len(hot))
	for _, m := range hot {
		f.hotSet[m.path] = true
	}
	for path, t := range f.files {
		if t.pin != nil && !f.hotSet[path] {
			f.unpin(path, t, true) // the budget no longer covers it
		}
	}
	if shrinking {
		f.giveBack(snapshot, previous, belowFloor, pressure)
	}
	f.hold(ctx, hot, target, now)
	f.recordState(budget, hot)
}

// observe samples every managed file, updates heat and misses, and drops behind scanners.
func (f *Feature) observe(ctx context.Context, elapsed float64) {
	var accesses map[string]FileAccess
	if f.access != nil {
		paths := make([]string, 0, len(f.files))
		for path := range f.files {
			paths = append(paths, path)
		}
		accesses = f.access.FileAccesses(paths)
		f.stats.HitsObserved = true
	}
	pageSize := f.sampler.pageSize
	for path, t := range f.files {
		if ctx.Err() != nil {
			return
		}
		current, err := f.sampler.sample(path)
		if errors.Is(err, fs.ErrNotExist) {
			t.pin.release()
			delete(f.files, path)
			continue
		}
		if err != nil {
			f.stats.LastError = err.Error()
			continue
		}
		t.sizeBytes = current.sizeBytes
		f.redraw(t, current)
		if !f.sampler.measuresResidency {
			// Nothing to learn heat from: every file gets the same heat per byte, so the hot set is
			// the pins, then the managed files in path order (rankHotSet's tie-break).
			t.heat = float64(t.sizeBytes)
			continue
		}
		if !t.sampled {
			t.residency, t.sampled = current, true
			continue // the first sample is the baseline
		}
		c := compare(t.residency, current)
		byOthers := max(0, c.pagedInPages-t.loadedPages)
		t.loadedPages = 0
		f.stats.MissBytes += byOthers * pageSize
		access := accesses[path]
		if f.access != nil {
			f.stats.HitBytes += max(0, access.AccessedPages-access.MissedPages) * pageSize
		}
		f.model.update(&t.fileHeat, observation{
			residentPages: current.total(), retainedPages: c.retainedPages, pagedInPages: byOthers,
			pagedInSpanPages: c.spanPages(),
			accessedPages:    access.AccessedPages, pageSize: pageSize, elapsedSeconds: elapsed,
		}, f.hotSet[path], f.policy.ScanResistanceThresholdBytes)
		t.residency = current
		if t.scanning && c.newestPage >= 0 {
			f.dropBehind(path, t, c.newestPage)
		}
	}
	f.countGroups()
}

// countGroups adds the interval's group counts of the managed files to the statistics.
func (f *Feature) countGroups() {
	f.stats.HoldoutMeasured, f.stats.BucketsMeasured = false, false
	if f.groups == nil || !f.groups.Measuring() {
		if f.drawn.Active() {
			f.setDraw() // the program went away: hold nothing out that nobody counts
		}
		return
	}
	keys := make([]FileKey, 0, len(f.files))
	for _, t := range f.files {
		if t.draw.done && t.residency.keyKnown {
			keys = append(keys, t.draw.key)
		}
	}
	counts, err := f.groups.GroupCounts(keys)
	if err != nil {
		f.stats.LastError = "cannot count the read cache's control group: " + err.Error()
		return
	}
	pageSize := f.sampler.pageSize
	for _, c := range counts {
		f.stats.ManagedAccessedBytes += c.ManagedAccessed * pageSize
		f.stats.ManagedMissedBytes += c.ManagedMissed * pageSize
		f.stats.ControlAccessedBytes += c.ControlAccessed * pageSize
		f.stats.ControlMissedBytes += c.ControlMissed * pageSize
		f.stats.OwnReadBytes += c.OwnAdded * pageSize
		f.stats.OwnPageHitBytes += c.OwnHits * pageSize
	}
	f.stats.HoldoutMeasured, f.stats.HoldoutPercent = true, f.drawn.Percent
	f.countBuckets()
}

// countBuckets adds the interval's counts per hash bucket while a control is drawn: without one
// the buckets compare nothing, and the kernel does not count them.
func (f *Feature) countBuckets() {
	buckets, err := f.groups.BucketCounts()
	if err != nil {
		f.stats.LastError = "cannot count the read cache's groups per bucket: " + err.Error()
		return
	}
	if !f.drawn.Active() {
		return
	}
	pageSize := f.sampler.pageSize
	for b, c := range buckets {
		total := &f.stats.Buckets[b]
		total.ManagedAccessed += c.ManagedAccessed * pageSize
		total.ManagedMissed += c.ManagedMissed * pageSize
		total.ControlAccessed += c.ControlAccessed * pageSize
		total.ControlMissed += c.ControlMissed * pageSize
	}
	f.stats.BucketsMeasured = true
}

// dropBehind evicts a scanner's pages that lie more than DropBehindKeepBytes behind its newest.
func (f *Feature) dropBehind(path string, t *trackedFile, newestPage int64) {
	pageSize := f.sampler.pageSize
	endPage := newestPage + 1 - f.cfg.DropBehindKeepBytes/pageSize
	if endPage <= 0 {
		return
	}
	resident := t.managedResidentPages(0, endPage)
	if resident == 0 {
		return
	}
	if err := t.dropManaged(path, 0, endPage, pageSize); err != nil {
		f.stats.LastError = err.Error()
		return
	}
	t.clearManaged(0, endPage)
	f.stats.DroppedBehindBytes += resident * pageSize
}

// giveBack frees memory in a backoff: the files that just left the hot set, then, below the
// floor, the coldest other managed files until the floor is restored, and under pressure the
// colder half of them.
func (f *Feature) giveBack(snapshot memlimit.Snapshot, previousHot map[string]bool, belowFloor, pressure bool) {
	pageSize := f.sampler.pageSize
	var outside []string
	outsideResident := int64(0)
	for path, t := range f.files {
		resident := t.managedResidentPages(0, t.residency.pages())
		if f.hotSet[path] || resident == 0 {
			continue
		}
		if previousHot[path] {
			f.drop(path, t)
			continue
		}
		outside = append(outside, path)
		outsideResident += resident * pageSize
	}
	need := int64(0)
	if belowFloor {
		need = f.policy.FreeMemoryFloorBytes - snapshot.AvailableBytes()
	}
	if pressure {
		need = max(need, outsideResident/2)
	}
	heats := make(map[string]*fileHeat, len(f.files))
	for path, t := range f.files {
		heats[path] = &t.fileHeat
	}
	for _, path := range coldestFirst(heats, outside) {
		if need <= 0 {
			return
		}
		need -= f.drop(path, f.files[path])
	}
}

// drop evicts a file's cached pages (those outside the control) and returns how many bytes
// were resident.
func (f *Feature) drop(path string, t *trackedFile) int64 {
	resident := t.managedResidentPages(0, t.residency.pages()) * f.sampler.pageSize
	if err := t.dropManaged(path, 0, t.residency.pages(), f.sampler.pageSize); err != nil {
		f.stats.LastError = err.Error()
		return 0
	}
	t.clearManaged(0, t.residency.pages())
	f.stats.ReleasedBytes += resident
	return resident
}

// hold pins and prefetches the hot set, unless a backoff is holding growth back.
func (f *Feature) hold(ctx context.Context, hot []hotSetMember, target int64, now time.Time) {
	if f.stats.InBackoff {
		return
	}
	pageSize := f.sampler.pageSize
	headroom := target - f.hotResidentBytes()
	for _, m := range hot {
		if ctx.Err() != nil {
			return
		}
		t := f.files[m.path]
		if m.pinned {
			if t.pin == nil && !t.pinnedAttempted {
				missing := t.heldBytes() - t.managedResidentPages(0, t.residency.pages())*pageSize
				var runs [][2]int64
				if t.draw.mask != nil {
					runs = t.managedRuns(0, t.sizeBytes)
				}
				p, err := pinManagedRuns(m.path, runs)
				t.pinnedAttempted = true
				if err != nil {
					f.stats.PinErrors++
					f.stats.LastError = err.Error()
					continue
				}
				t.pin = p
				t.loadedPages += max(0, missing/pageSize)
				headroom -= max(0, missing)
			}
			continue
		}
		if !f.policy.Prefetch || headroom <= 0 {
			continue
		}
		if !f.sampler.measuresResidency {
			headroom -= f.prefetchWhole(m.path, t, now)
			continue
		}
	runs:
		for _, missing := range missingRuns(t.residency, pageSize) {
			for _, run := range t.managedRuns(missing[0], missing[1]) {
				length := min(run[1], headroom)
				if length <= 0 {
					break runs
				}
				if err := advise(m.path, run[0], length, fadviseWillNeed); err != nil {
					f.stats.LastError = err.Error()
					break runs
				}
				headroom -= length
				f.stats.PrefetchedBytes += length
				t.loadedPages += (length + pageSize - 1) / pageSize
			}
		}
	}
}

// prefetchWhole reads a hot file into memory where residency cannot be measured (Windows):
// when it enters the hot set, when its size changed, and every PrefetchRefresh, so its pages
// stay recently used. It returns the bytes read.
func (f *Feature) prefetchWhole(path string, t *trackedFile, now time.Time) int64 {
	if t.prefetchedSize == t.sizeBytes && now.Sub(t.prefetchedAt) < f.cfg.PrefetchRefresh {
		return 0
	}
	if err := advise(path, 0, t.sizeBytes, fadviseWillNeed); err != nil {
		f.stats.LastError = err.Error()
		return 0
	}
	t.prefetchedAt, t.prefetchedSize = now, t.sizeBytes
	f.stats.PrefetchedBytes += t.sizeBytes
	return t.sizeBytes
}

func (f *Feature) rescan(now time.Time) {
	paths, _ := accel.RegularFiles(f.policy.Include, f.policy.IsManaged, f.cfg.MaxFiles)
	for _, path := range paths {
		if f.files[path] == nil {
			f.files[path] = &trackedFile{}
		}
	}
	f.pinOrder = expandPins(f.policy.Pin, paths)
	for _, path := range f.pinOrder {
		f.files[path].pinned = true
	}
	f.lastRescan = now
}

func (f *Feature) pinnedBytes() int64 {
	n := int64(0)
	for _, t := range f.files {
		if t.pin != nil {
			n += t.pin.sizeBytes
		}
	}
	return n
}

// heldBytes is the memory the cache holds for the hot set: its resident pages, or where
// residency cannot be measured, what it has locked.
func (f *Feature) heldBytes() int64 {
	if !f.sampler.measuresResidency {
		return f.pinnedBytes()
	}
	return f.hotResidentBytes()
}

// hotResidentBytes are the hot set's resident bytes outside the control: what the cache holds.
func (f *Feature) hotResidentBytes() int64 {
	n := int64(0)
	for path := range f.hotSet {
		if t := f.files[path]; t != nil {
			n += t.managedResidentPages(0, t.residency.pages()) * f.sampler.pageSize
		}
	}
	return n
}

func (f *Feature) recordState(budget int64, hot []hotSetMember) {
	f.stats.BudgetBytes = budget
	f.stats.HotSetBytes = 0
	for _, m := range hot {
		f.stats.HotSetBytes += m.sizeBytes
	}
	f.stats.ResidentBytes = min(f.hotResidentBytes(), f.stats.HotSetBytes)
	f.stats.PinnedBytes = f.pinnedBytes()
	f.stats.ResidencyMeasured = f.sampler.measuresResidency
	f.stats.ManagedFiles = len(f.files)
	f.stats.ManagedResidentBytes = 0
	for _, t := range f.files {
		f.stats.ManagedResidentBytes += t.residency.total() * f.sampler.pageSize
	}
}
