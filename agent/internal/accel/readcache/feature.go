//go:build linux || windows

package readcache

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// Feature is the read cache. Apply, Stats and Close may be called from any goroutine while Run
// samples; they serialise on one lock.
type Feature struct {
	cfg     Config
	memory  MemorySource
	access  AccessSource
	groups  GroupSource
	sampler *sampler
	model   heatModel

	mu          sync.Mutex
	policy      policy.ReadCache
	holdout     Holdout  // the policy's draw
	drawn       Holdout  // the draw in force: the policy's where the groups are counted, else none
	pinOrder    []string // the pinned files, in the order of the policy's pins
	files       map[string]*trackedFile
	hotSet      map[string]bool
	lastRescan  time.Time
	lastSample  time.Time
	holdSamples int
	stats       Stats
}

// trackedFile is the cache's state of one managed file.
type trackedFile struct {
	fileHeat
	residency       residency // at the last sample; bits nil before the first
	sampled         bool
	loadedPages     int64 // pages the cache itself loaded since the last sample
	pin             *pinning
	pinnedAttempted bool // a failed pin is not retried until the policy changes
	// Where residency cannot be measured (Windows): when the file was last read whole, at what size.
	prefetchedAt   time.Time
	prefetchedSize int64
	// draw: the file's control groups (holdout_file.go).
	draw fileDraw
}

// New makes a read cache that does nothing until Apply enables it.
func New(cfg Config, deps Deps) (*Feature, error) {
	cfg = cfg.withDefaults()
	memory := deps.Memory
	if memory == nil {
		var err error
		if memory, err = defaultMemory(cfg.ProcPath); err != nil {
			return nil, fmt.Errorf("read cache: %w", err)
		}
	}
	return &Feature{
		cfg: cfg, memory: memory, access: deps.Access, groups: deps.Groups, sampler: newSampler(),
		model:  heatModel{halfLife: cfg.HeatHalfLife, refaultWeight: cfg.RefaultWeight},
		policy: policy.Default().ReadCache, files: map[string]*trackedFile{}, hotSet: map[string]bool{},
	}, nil
}

// Apply validates rc against this machine and switches to it, or returns an error a person can
// act on and keeps the previous policy. A disabled policy releases everything. The control
// group is drawn from rc alone; the agent applies whole policies with ApplyPolicy.
func (f *Feature) Apply(ctx context.Context, rc policy.ReadCache) error {
	p := policy.Default()
	p.ReadCache = rc
	return f.apply(ctx, rc, NewHoldout(p))
}

// ApplyPolicy applies p's read cache with the control group drawn from all of p, so every
// policy version draws anew (and a restart with the same policy keeps the draw).
func (f *Feature) ApplyPolicy(ctx context.Context, p policy.Policy) error {
	return f.apply(ctx, p.ReadCache, NewHoldout(p))
}

func (f *Feature) apply(ctx context.Context, rc policy.ReadCache, holdout Holdout) error {
	if !rc.Enabled {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.releaseAll(false)
		f.policy, f.files, f.pinOrder, f.hotSet = rc, map[string]*trackedFile{}, nil, map[string]bool{}
		f.holdout, f.drawn = Holdout{}, Holdout{}
		f.stats.Enabled, f.stats.HoldoutMeasured = false, false
		if f.groups != nil {
			_ = f.groups.SetHoldout(Holdout{})
			_, _ = f.groups.GroupCounts(nil) // stop counting the files
		}
		return nil
	}
	if _, err := f.memory.Read(); err != nil {
		return fmt.Errorf("read cache: cannot measure available memory: %w", err)
	}
	paths, truncated := accel.RegularFiles(rc.Include, rc.IsManaged, f.cfg.MaxFiles)
	if truncated {
		return fmt.Errorf("read cache: the include patterns match more than %d files: narrow them "+
			"or raise the agent's read cache file limit", f.cfg.MaxFiles)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	pinOrder := expandPins(rc.Pin, paths)
	pinBytes := int64(0)
	for _, path := range pinOrder {
		if size, ok := accel.FileSize(path); ok {
			pinBytes += size
		}
	}
	if err := checkLockLimit(f.cfg.ProcPath, pinBytes); err != nil {
		return fmt.Errorf("read cache: %w", err)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	pinned := map[string]bool{}
	for _, path := range pinOrder {
		pinned[path] = true
	}
	files := make(map[string]*trackedFile, len(paths))
	for _, path := range paths {
		t := f.files[path]
		if t == nil {
			t = &trackedFile{}
		}
		if !pinned[path] && t.pin != nil {
			t.pin.release()
			t.pin = nil
		}
		t.pinned, t.pinnedAttempted = pinned[path], false
		files[path] = t
	}
	for path, t := range f.files {
		if files[path] == nil {
			t.pin.release()
		}
	}
	f.policy, f.files, f.pinOrder, f.lastRescan = rc, files, pinOrder, time.Now()
	f.stats.Enabled, f.stats.LastError = true, ""
	f.holdout = holdout
	f.setDraw()
	return nil
}

// setDraw puts the policy's control group in force where the groups are counted, and none
// elsewhere; each file is drawn again at its next sample. Pins made under another draw may lock
// pages of the new control: they are released and made again at the next sample.
func (f *Feature) setDraw() {
	drawn := Holdout{}
	if f.groups != nil && f.groups.Measuring() {
		drawn = f.holdout
		if err := f.groups.SetHoldout(drawn); err != nil {
			f.stats.LastError = "cannot count the read cache's control group: " + err.Error()
			drawn = Holdout{}
		}
	}
	if drawn != f.drawn {
		for path, t := range f.files {
			if t.pin != nil {
				f.unpin(path, t, false)
				t.pinnedAttempted = false
			}
		}
	}
	f.drawn = drawn
}

// expandPins maps each pin (a file or a directory) to the managed files it covers, in order.
func expandPins(pins, managed []string) []string {
	var order []string
	seen := map[string]bool{}
	for _, pin := range pins {
		for _, path := range managed {
			if (path == pin || strings.HasPrefix(path, pin+"/")) && !seen[path] {
				seen[path] = true
				order = append(order, path)
			}
		}
	}
	return order
}

// Run samples every SampleInterval until ctx ends.
func (f *Feature) Run(ctx context.Context) error {
	ticker := time.NewTicker(f.cfg.SampleInterval)
	defer ticker.Stop()
	for {
		f.Sample(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// ManagedFiles maps each file the cache manages now to the include pattern of the policy that
// brought it in (the first that matches, in policy order): the read-cache scopes of the
// miss-ratio curves. Empty while the cache is off.
func (f *Feature) ManagedFiles() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	if !f.policy.Enabled {
		return out
	}
	for path := range f.files {
		for _, pattern := range f.policy.Include {
			if policy.MatchesPattern(pattern, path) {
				out[path] = pattern
				break
			}
		}
	}
	return out
}

// Stats returns the counters and the state at the last sample.
func (f *Feature) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// Close releases every pin. The feature must not be used afterwards.
func (f *Feature) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseAll(false)
	return nil
}

// releaseAll unlocks every pinned file, dropping its pages too when dropPages.
func (f *Feature) releaseAll(dropPages bool) {
	for path, t := range f.files {
		f.unpin(path, t, dropPages)
	}
}

func (f *Feature) unpin(path string, t *trackedFile, dropPages bool) {
	if t.pin == nil {
		return
	}
	size := t.pin.sizeBytes
	t.pin.release()
	t.pin = nil
	if dropPages && advise(path, 0, 0, fadviseDontNeed) == nil {
		f.stats.ReleasedBytes += size
	}
}
