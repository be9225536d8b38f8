package proofrun

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/accel/writeopt"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// features is the Accelerator made of the agent's real read cache and write optimisation, run
// in this process for the proof run's files only.
type features struct {
	readCache *readcache.Feature
	writeOpt  *writeopt.Feature
	stop      context.CancelFunc
	done      chan struct{}
}

// NewAccelerator starts the read cache (sampling every 250 ms, so it reacts within a step) and
// write optimisation (preallocation only; no defragmentation passes during a run), both
// disabled until Enable.
func NewAccelerator(logger *slog.Logger) (Accelerator, error) {
	if logger == nil {
		logger = slog.Default()
	}
	rc, err := readcache.New(readcache.Config{SampleInterval: 250 * time.Millisecond, Logger: logger}, readcache.Deps{})
	if err != nil {
		return nil, err
	}
	wo, err := writeopt.New(writeopt.Config{DefragInterval: 365 * 24 * time.Hour, Logger: logger})
	if err != nil {
		_ = rc.Close()
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	f := &features{readCache: rc, writeOpt: wo, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		finished := make(chan struct{})
		go func() { _ = wo.Run(ctx); close(finished) }()
		_ = rc.Run(ctx)
		<-finished
	}()
	return f, nil
}

func (f *features) Enable(ctx context.Context, t Targets) error {
	rc := policy.Default().ReadCache
	rc.Enabled, rc.Prefetch, rc.Include = true, true, t.DataFiles
	// The off and on passes are the proof run's comparison: the cache manages every page.
	rc.HoldoutPercent = 0
	budget := t.BudgetBytes
	rc.BudgetBytes = &budget
	if t.ScanResistBytes > 0 {
		rc.ScanResistanceThresholdBytes = t.ScanResistBytes
	}
	if err := f.readCache.Apply(ctx, rc); err != nil {
		return err
	}
	wo := policy.Default().WriteOptimization
	if t.LogPattern != "" {
		wo.Enabled = true
		wo.Preallocation = []policy.PreallocationRule{{Pattern: t.LogPattern, ChunkBytes: t.PreallocChunk}}
	}
	return f.writeOpt.Apply(ctx, wo)
}

func (f *features) Disable(ctx context.Context) error {
	return errors.Join(f.readCache.Apply(ctx, policy.ReadCache{}), f.writeOpt.Apply(ctx, policy.WriteOptimization{}))
}

func (f *features) Stats() AcceleratorStats {
	rc, wo := f.readCache.Stats(), f.writeOpt.Stats()
	last := rc.LastError
	if last == "" {
		last = wo.LastError
	}
	return AcceleratorStats{
		ReadCacheBudgetBytes: rc.BudgetBytes, ReadCachePrefetchedBytes: rc.PrefetchedBytes,
		ReadCacheResidentBytes: rc.ResidentBytes, ReadCacheMissBytes: rc.MissBytes,
		ReadCacheBackoffs: rc.BackoffEvents, ReadCacheDroppedBehindBytes: rc.DroppedBehindBytes, PreallocatedBytes: wo.PreallocatedBytes,
		FragmentsPrevented: wo.FragmentsPrevented, LastError: last,
	}
}

func (f *features) Close() error {
	f.stop()
	<-f.done
	return errors.Join(f.readCache.Close(), f.writeOpt.Close())
}
