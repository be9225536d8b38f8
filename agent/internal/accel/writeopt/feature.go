//go:build linux || windows

package writeopt

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel"
	"github.com/spindle-io/spindle/agent/internal/policy"
	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// Feature is write optimisation. Apply, DefragNow, Stats and Close may be called from any
// goroutine while Run handles events; they serialise on one lock (DefragNow holds it only
// between files).
type Feature struct {
	cfg   Config
	sleep func(time.Duration)

	mu      sync.Mutex
	policy  policy.WriteOptimization
	watcher *watcher
	retired []*watcher // replaced by Apply; closed by Run or Close when nobody polls them
	growth  map[string]*growth
	compare *comparison // growing files of the watched directories, managed or not
	stats   Stats
}

// New makes the feature; it does nothing until Apply enables it.
func New(cfg Config) (*Feature, error) {
	cfg = cfg.withDefaults()
	return &Feature{cfg: cfg, sleep: time.Sleep, growth: map[string]*growth{},
		compare: newComparison(cfg.ComparisonFiles), stats: Stats{Extents: map[string]int{}}}, nil
}

// Apply validates wo against this machine and switches to it, or keeps the previous policy and
// returns an error a person can act on (wrapping ErrUnsupported for a file system that cannot).
func (f *Feature) Apply(ctx context.Context, wo policy.WriteOptimization) error {
	var w *watcher
	var gateErr error
	if wo.Enabled && len(wo.Preallocation) > 0 {
		var err error
		if w, err = newWatcher(wo.Preallocation, f.cfg.MaxFiles); err != nil {
			return fmt.Errorf("write optimisation: %w", err)
		}
		gateErr = f.attachGate(w)
	}
	if wo.Enabled && wo.Defragmentation.Enabled {
		for _, pattern := range wo.Defragmentation.Include {
			root := filepath.FromSlash(accel.LiteralPrefix(pattern))
			if _, err := os.Stat(root); err != nil {
				continue // not there yet: checked per file when it is
			}
			if err := checkDefragSupported(root); err != nil {
				if w != nil {
					w.close()
				}
				return fmt.Errorf("write optimisation: %w; switch defragmentation off for these paths", err)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		if w != nil {
			w.close()
		}
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.watcher != nil {
		f.retired = append(f.retired, f.watcher)
	}
	f.policy, f.watcher = wo, w
	f.stats.FirstWriteGated, f.stats.FirstWriteReason = w != nil && gateErr == nil, ""
	if w != nil && gateErr != nil {
		f.stats.FirstWriteReason = gateErr.Error()
	}
	f.releaseUnmanagedLocked(w)
	if w == nil {
		// Nothing watched: forget the tracked files (not the totals), so growth while unwatched
		// is never counted.
		f.compare.forget()
	}
	f.stats.LastError = ""
	return nil
}

// Run handles preallocation events and runs a defragmentation pass every DefragInterval until
// ctx ends.
func (f *Feature) Run(ctx context.Context) error {
	buffer := make([]byte, 64*1024)
	nextDefrag := time.Now().Add(f.cfg.DefragInterval)
	nextGrowth := time.Now().Add(f.cfg.GrowthInterval)
	for ctx.Err() == nil {
		f.mu.Lock()
		for _, old := range f.retired {
			old.close()
		}
		f.retired = nil
		w := f.watcher
		f.mu.Unlock()
		if w == nil {
			f.sleep(200 * time.Millisecond)
		} else {
			if err := w.wait(200 * time.Millisecond); err != nil {
				return fmt.Errorf("write optimisation: %w", err)
			}
			f.handleEvents(w, buffer)
		}
		if time.Now().After(nextGrowth) {
			f.trimIdle(time.Now())
			f.MeasureGrowth()
			nextGrowth = time.Now().Add(f.cfg.GrowthInterval)
		}
		if time.Now().After(nextDefrag) {
			f.DefragNow(ctx)
			nextDefrag = time.Now().Add(f.cfg.DefragInterval)
		}
	}
	return nil
}

func (f *Feature) handleEvents(w *watcher, buffer []byte) {
	events, err := w.read(buffer)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.stats.LastError = "read file events: " + err.Error()
	}
	if f.watcher != w {
		return // replaced by Apply meanwhile
	}
	seen := map[string]bool{}
	for _, e := range events {
		if e.isDir {
			_ = w.addTree(e.path, f.cfg.MaxFiles)
			continue
		}
		chunk, managed := w.ruleFor(e.path)
		f.compare.saw(e.path, managed, e.created)
		if seen[e.path] {
			continue
		}
		seen[e.path] = true
		if managed {
			f.preallocateLocked(e.path, chunk)
		}
	}
}

// MeasureGrowth counts the files that changed since they were last measured (at most
// ComparisonChecks of them, longest waiting first) and adds their growth to the comparison
// group's counters. Run calls it every GrowthInterval; the lock is not held during FIEMAP.
func (f *Feature) MeasureGrowth() {
	f.mu.Lock()
	compare := f.compare
	paths := compare.due(f.cfg.ComparisonChecks)
	f.mu.Unlock()
	for _, path := range paths {
		size, extents, err := sizeAndExtents(path)
		f.mu.Lock()
		switch {
		case errors.Is(err, os.ErrNotExist):
			compare.gone(path)
		case err != nil:
			// Not a growing file to compare (a symlink, FIFO, hard-linked or unmappable file) or
			// one that cannot be read: dropped; only the unexpected is worth a problem report.
			compare.gone(path)
			if !errors.Is(err, ErrUnsupported) && !errors.Is(err, safeopen.ErrSymlink) &&
				!errors.Is(err, safeopen.ErrNotRegular) && !errors.Is(err, safeopen.ErrHardLinked) &&
				!errors.Is(err, safeopen.ErrOtherDevice) {
				f.stats.LastError = "measure growth: " + err.Error()
			}
		default:
			compare.measured(path, size, int64(extents))
		}
		f.mu.Unlock()
	}
}

func (f *Feature) preallocateLocked(path string, chunkBytes int64) {
	f.reserveLocked(path, chunkBytes, func(g *growth, limits windowLimits, now time.Time) (int64, error) {
		return preallocate(path, g, limits, now)
	})
}

// reserveLocked sizes and reserves the next window of a managed file with reserve (which opens
// the file by path, or uses the descriptor the open gate has) and counts what it did.
func (f *Feature) reserveLocked(path string, chunkBytes int64, reserve func(*growth, windowLimits, time.Time) (int64, error)) (reservedBytes int64) {
	now := time.Now()
	g := f.growth[path]
	if g == nil {
		if len(f.growth) >= f.cfg.MaxFiles {
			return 0
		}
		g = &growth{lastSize: -1}
		f.growth[path] = g
	}
	g.lastEvent = now
	if g.unsupported {
		return 0
	}
	previousSize, hintedBefore := g.lastSize, g.hinted
	reserved, err := reserve(g, f.windowLimits(chunkBytes), now)
	if g.hinted && !hintedBefore {
		f.stats.ExtentSizeHintsSet++
	}
	if g.hintErr != nil {
		f.stats.LastError, g.hintErr = g.hintErr.Error(), nil
	}
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			f.stats.LastError = err.Error()
		}
		return 0
	}
	if previousSize >= 0 && g.lastSize > previousSize && reserved == 0 {
		f.stats.FragmentsPrevented++ // this growth landed in space reserved before it
	}
	f.stats.PreallocatedBytes += reserved
	return reserved
}

// DefragNow runs one defragmentation pass over the included files and returns the files it
// made less fragmented. With idleOnly it first measures the disk of each file and skips busy ones.
func (f *Feature) DefragNow(ctx context.Context) int {
	f.mu.Lock()
	wo := f.policy
	f.mu.Unlock()
	if !wo.Enabled || !wo.Defragmentation.Enabled {
		return 0
	}
	defrag := wo.Defragmentation
	files, _ := accel.RegularFiles(defrag.Include, func(path string) bool {
		return accel.MatchAny(defrag.Include, path)
	}, f.cfg.MaxFiles)
	improved := 0
	idleDisks := map[string]bool{}
	for _, path := range files {
		if ctx.Err() != nil {
			break
		}
		extents, err := CountExtents(path)
		f.recordExtents(path, extents, err)
		if err != nil || int64(extents) <= defrag.ExtentThreshold {
			continue
		}
		if defrag.IdleOnly && !f.diskIdle(path, idleDisks) {
			continue
		}
		result, err := defragment(path, f.cfg.MoveChunkBytes, f.cfg.FreeSpaceFloorBytes)
		f.mu.Lock()
		switch {
		case errors.Is(err, ErrBelowFloor):
			f.stats.DefragSkippedSpace++
			f.stats.LastError = err.Error()
		case err != nil:
			f.stats.LastError = err.Error()
		case result.Improved:
			f.stats.FilesDefragmented++
			f.stats.Extents[path] = result.ExtentsAfter
			improved++
		default:
			f.stats.DefragNotImproved++
		}
		f.mu.Unlock()
	}
	return improved
}

// diskIdle measures the disk of path once per pass (a busy disk stays skipped for the pass).
func (f *Feature) diskIdle(path string, measured map[string]bool) bool {
	disk, err := diskOf(f.cfg.SysPath, path)
	if err != nil {
		f.setError(err)
		return false
	}
	if idle, ok := measured[disk]; ok {
		return idle
	}
	busy, err := diskUtilisationPercent(f.cfg.ProcPath, disk, f.cfg.DiskIdleWindow, f.sleep)
	idle := err == nil && busy < f.cfg.IdleUtilisationPercent
	measured[disk] = idle
	if err != nil {
		f.setError(err)
	}
	if !idle {
		f.mu.Lock()
		f.stats.DefragSkippedBusy++
		f.mu.Unlock()
	}
	return idle
}

func (f *Feature) recordExtents(path string, extents int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.stats.LastError = err.Error()
		return
	}
	f.stats.Extents[path] = extents
}

func (f *Feature) setError(err error) {
	f.mu.Lock()
	f.stats.LastError = err.Error()
	f.mu.Unlock()
}

// Stats returns a copy of the counters.
func (f *Feature) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats
	s.Extents = maps.Clone(f.stats.Extents)
	s.ManagedGrownBytes, s.ManagedExtentsAdded = f.compare.managed.grownBytes, f.compare.managed.extentsAdded
	s.UnmanagedGrownBytes, s.UnmanagedExtentsAdded = f.compare.unmanaged.grownBytes, f.compare.unmanaged.extentsAdded
	s.GrowthWatched = f.watcher != nil && f.watcher.watching()
	return s
}

// Close stops watching and trims what is reserved past the end of the files no one has open
// for writing any more; a file still open keeps its reservation (it is its own to grow into).
func (f *Feature) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseUnmanagedLocked(nil)
	for _, old := range f.retired {
		old.close()
	}
	if f.watcher != nil {
		f.watcher.close()
	}
	f.retired, f.watcher = nil, nil
	return nil
}
