package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/spindle-io/spindle/agent/internal/accel"
	"github.com/spindle-io/spindle/agent/internal/accel/memlatency"
	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/accel/writeopt"
	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/policy"
	"github.com/spindle-io/spindle/agent/internal/policystate"
)

// Capability names of the acceleration features, beside the collectors' in status.json and in
// every batch's spindle.agent.capabilities.
const (
	capabilityReadCache          = "accel.read_cache"
	capabilityReadCacheResidency = "accel.read_cache.residency"
	capabilityReadCacheHoldout   = "accel.read_cache.holdout"
	capabilityWriteOptimization  = "accel.write_optimization"
	capabilityPreallocation      = "accel.write_optimization.preallocation"
	capabilityDefragmentation    = "accel.write_optimization.defragmentation"
	capabilityFirstWrite         = "accel.write_optimization.first_write"
	capabilityExtentSizeHint     = "accel.write_optimization.extent_size_hint"
)

// accelFeatures are the acceleration features the run loop owns: created at start, switched by
// the policy through policystate's appliers (OpAMP's goroutine), each sampling in a goroutine of
// its own, read by the accel collector every tick, and closed at stop.
type accelFeatures struct {
	log          *slog.Logger
	readCache    *readcache.Feature // nil when it cannot run here; readCacheErr says why
	readCacheErr error
	writeOpt     *writeopt.Feature // nil when it cannot run here; writeOptErr says why
	writeOptErr  error
	// What each feature can and cannot do here, beyond running at all: residency (not on
	// Windows), and preallocation and defragmentation on the state directory's volume.
	residencyErr, preallocationErr, defragmentationErr error
	// firstWriteErr says why a new file's first window comes after its first write (inotify
	// alone); nil: the open gate reserves it before.
	firstWriteErr error
	// extentSizeHintErr says why no new file gets an XFS extent size hint here (no XFS mounted,
	// or new files are caught only after their first data); nil: the gate sets them on XFS.
	extentSizeHintErr error
	// holdoutErr says why the read cache's control group cannot be counted here (no page-cache
	// eBPF program): then nothing is held out and what the cache caused is not measured.
	holdoutErr error
	// memLatency measures what a page-cache read costs here, at start and every
	// read_cache.memory_latency_period, whatever the policy.
	memLatency *memlatency.Calibrator

	mu sync.Mutex
	// writeOptPolicy is the section in force: writeopt.Stats has no "enabled", and its Extents
	// keep files a previous policy managed.
	writeOptPolicy policy.WriteOptimization

	stop      context.CancelFunc
	running   sync.WaitGroup
	closeOnce sync.Once
}

// newAccelFeatures creates both features, idle until a policy enables them. One that cannot
// run here (not Linux, memory not measurable) is reported as a missing capability, and a policy
// enabling it is refused with the reason.
// access is nil without the page-cache eBPF program: the read cache then does not measure hits,
// and holds no control group out (nobody could count it).
func newAccelFeatures(cfg config.Config, log *slog.Logger, access readcache.AccessSource) *accelFeatures {
	f := &accelFeatures{log: log, writeOptPolicy: policy.Default().WriteOptimization,
		memLatency: &memlatency.Calibrator{Dir: cfg.StateDir, Period: cfg.ReadCache.MemoryLatencyPeriod, Logger: log}}
	deps := readcache.Deps{Access: access}
	pidProblem := pidNamespaceProblem(cfg.ProcPath)
	if groups, ok := access.(readcache.GroupSource); ok && groups.Measuring() && pidProblem == nil {
		deps.Groups = groups
	}
	f.readCache, f.readCacheErr = readcache.New(readcache.Config{ProcPath: cfg.ProcPath, Logger: log}, deps)
	f.writeOpt, f.writeOptErr = writeopt.New(writeopt.Config{ProcPath: cfg.ProcPath, SysPath: cfg.SysPath, Logger: log,
		FreeSpaceFloorBytes: cfg.WriteOptimization.FreeSpaceFloorBytes, FirstWrite: writeopt.FirstWriteMode(cfg.WriteOptimization.FirstWrite),
		ExtentSizeHint: cfg.WriteOptimization.ExtentSizeHint == config.ExtentSizeHintFirstWindow})
	f.residencyErr = f.readCacheErr
	if f.readCacheErr == nil {
		f.residencyErr = readcache.ResidencyMeasurable()
	}
	f.holdoutErr = f.residencyErr
	if f.holdoutErr == nil && pidProblem != nil {
		f.holdoutErr = pidProblem
	}
	if f.holdoutErr == nil && deps.Groups == nil {
		f.holdoutErr = errors.New("the page-cache eBPF program is not running (it needs root or CAP_BPF and CAP_PERFMON, BTF and " +
			"kernel 6.10 or newer): the read cache holds no control group out, so what it caused is not measured")
	}
	f.preallocationErr, f.defragmentationErr = f.writeOptErr, f.writeOptErr
	if f.writeOptErr == nil {
		f.preallocationErr, f.defragmentationErr = writeopt.Probe(cfg.StateDir)
	}
	f.firstWriteErr = f.preallocationErr
	switch {
	case f.firstWriteErr != nil:
	case cfg.WriteOptimization.FirstWrite == config.FirstWriteInotify:
		f.firstWriteErr = writeopt.ErrFirstWriteInotify
	default:
		f.firstWriteErr = writeopt.ProbeFirstWrite(cfg.StateDir)
	}
	f.extentSizeHintErr = probeExtentSizeHint(cfg.ProcPath, cfg.WriteOptimization.ExtentSizeHint, f.firstWriteErr)
	for name, err := range map[string]error{"read cache": f.readCacheErr, "write optimisation": f.writeOptErr} {
		if err != nil {
			log.Info("acceleration feature unavailable; a policy enabling it will be refused", "feature", name, "reason", err)
		}
	}
	return f
}

func (f *accelFeatures) capabilities() []collector.Capability {
	return []collector.Capability{featureCapability(capabilityReadCache, f.readCacheErr),
		featureCapability(capabilityReadCacheResidency, f.residencyErr),
		featureCapability(capabilityReadCacheHoldout, f.holdoutErr),
		featureCapability(capabilityWriteOptimization, f.writeOptErr),
		featureCapability(capabilityPreallocation, f.preallocationErr),
		featureCapability(capabilityDefragmentation, f.defragmentationErr),
		featureCapability(capabilityFirstWrite, f.firstWriteErr),
		featureCapability(capabilityExtentSizeHint, f.extentSizeHintErr)}
}

// probeExtentSizeHint says why new files get no XFS extent size hint here: only where agent.yaml
// asks for them (mode), and XFS takes one only before a file's first data, so only where the
// open gate holds new files (firstWriteErr nil), and only on a mounted XFS.
func probeExtentSizeHint(procPath, mode string, firstWriteErr error) error {
	if mode != config.ExtentSizeHintFirstWindow {
		return fmt.Errorf("%w: the agent's configuration says write_optimization.extent_size_hint: %s (the default: on "+
			"appended logs a hint was measured to change nothing while the agent keeps up, and to double the fragments "+
			"of a file it falls behind on); set it to %s to give new files on XFS a hint of their first window",
			writeopt.ErrUnsupported, mode, config.ExtentSizeHintFirstWindow)
	}
	if firstWriteErr != nil {
		return fmt.Errorf("XFS takes an extent size hint only before a file's first data, and here new files are "+
			"seen after it: %w", firstWriteErr)
	}
	_, err := writeopt.ProbeExtentSizeHint(procPath)
	return err
}

func featureCapability(name string, err error) collector.Capability {
	if err != nil {
		return collector.Capability{Name: name, Reason: err.Error()}
	}
	return collector.Capability{Name: name, Available: true}
}

// appliers hand the features to the policy manager, in the order they are applied.
func (f *accelFeatures) appliers() []policystate.Applier {
	return []policystate.Applier{
		policystate.NewReadCacheApplier(readCacheFeature{f}),
		policystate.NewWriteOptimizationApplier(writeOptFeature{f}),
	}
}

// start runs each feature's sampling loop, and the memory-read latency calibration, beside the
// run loop.
func (f *accelFeatures) start() {
	ctx, cancel := context.WithCancel(context.Background())
	f.stop = cancel
	runners := map[string]func(context.Context) error{"memory-read latency calibration": f.memLatency.Run}
	if f.readCache != nil {
		runners["read cache"] = f.readCache.Run
	}
	if f.writeOpt != nil {
		runners["write optimisation"] = f.writeOpt.Run
	}
	for name, run := range runners {
		f.running.Add(1)
		go func() {
			defer f.running.Done()
			if err := run(ctx); err != nil {
				f.log.Error("acceleration feature stopped; restart the agent", "feature", name, "error", err)
			}
		}()
	}
}

// close stops the sampling loops, then releases what the features hold (pins, watches). Safe
// to call more than once; call it after the OpAMP client stopped, so no policy arrives meanwhile.
func (f *accelFeatures) close() error {
	var err error
	f.closeOnce.Do(func() {
		if f.stop != nil {
			f.stop()
			f.running.Wait()
		}
		var errs []error
		if f.readCache != nil {
			errs = append(errs, f.readCache.Close())
		}
		if f.writeOpt != nil {
			errs = append(errs, f.writeOpt.Close())
		}
		err = errors.Join(errs...)
	})
	return err
}

// sources are what the accel collector reads every tick.
func (f *accelFeatures) sources() collector.AccelSources {
	s := collector.AccelSources{MemoryReadLatency: f.memLatency.Latest}
	if f.readCache != nil {
		s.ReadCache = f.readCache.Stats
	}
	if f.writeOpt != nil {
		s.WriteOptimization = f.writeOptStats
	}
	return s
}

// writeOptStats are write optimisation's stats with Extents narrowed to the files the policy in
// force manages, and whether that policy enables the feature.
func (f *accelFeatures) writeOptStats() (writeopt.Stats, bool) {
	st := f.writeOpt.Stats()
	f.mu.Lock()
	wo := f.writeOptPolicy
	f.mu.Unlock()
	for path := range st.Extents {
		if !managedByWriteOpt(wo, path) {
			delete(st.Extents, path) // Stats returns a copy
		}
	}
	return st, wo.Enabled
}

func managedByWriteOpt(wo policy.WriteOptimization, path string) bool {
	if !wo.Enabled {
		return false
	}
	for _, rule := range wo.Preallocation {
		if policy.MatchesPattern(rule.Pattern, path) {
			return true
		}
	}
	return wo.Defragmentation.Enabled && accel.MatchAny(wo.Defragmentation.Include, path)
}

// readCacheFeature and writeOptFeature adapt the features to policystate.Feature.
type readCacheFeature struct{ f *accelFeatures }

func (r readCacheFeature) Supported() error { return r.f.readCacheErr }

func (r readCacheFeature) Apply(ctx context.Context, p policy.Policy) error {
	if r.f.readCache == nil {
		return nil // nothing to switch off, and Check refused any policy switching it on
	}
	return r.f.readCache.ApplyPolicy(ctx, p)
}

type writeOptFeature struct{ f *accelFeatures }

func (w writeOptFeature) Supported() error { return w.f.writeOptErr }

func (w writeOptFeature) Apply(ctx context.Context, p policy.Policy) error {
	if w.f.writeOpt == nil {
		return nil
	}
	if err := w.f.writeOpt.Apply(ctx, p.WriteOptimization); err != nil {
		return err
	}
	w.f.mu.Lock()
	w.f.writeOptPolicy = p.WriteOptimization
	w.f.mu.Unlock()
	return nil
}
