package collector

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/mrcsample"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/mrc"
)

func init() {
	register("mrc", true, newMRCCollector)
	registerCapability("mrc", "ebpf.mrc")
}

// DefaultMRCWindow is the span of each miss-ratio curve: long enough for a few thousand sampled
// accesses on a moderately busy host, short enough that a change of workload shows within minutes.
const DefaultMRCWindow = 5 * time.Minute

// ReadCacheScopes is how the read cache's managed files reach the curves: path → the include
// pattern of the policy that manages it. The agent wires it once the features exist.
type ReadCacheScopes interface {
	UseReadCacheScopes(managedFiles func() map[string]string)
}

// scopeRefresh is how often the managed files are stat'ed again to map inodes to scopes; at
// least twice per window, so a short window's curves cover the files a new policy manages.
const scopeRefresh = time.Minute

// fileKey is a file as the kernel names it in samples: superblock device (MKDEV) and inode.
type fileKey struct {
	dev bpf.Dev
	ino uint64
}

// mrcCollector feeds the kernel's hashed samples into the curves and, once per window, records
// each curve's points. Between windows it records nothing: a curve is never sent half-built.
type mrcCollector struct {
	ebpfLoad
	probe   *mrcsample.Probe
	sysPath string
	window  time.Duration
	log     *slog.Logger

	mu           sync.Mutex // guards everything below: the reader goroutine feeds the curves
	set          *mrc.Set
	scopes       map[fileKey]string
	disks        map[bpf.Dev]string
	pushed       [2]uint64 // thresholds the kernel has
	thresholdErr error

	managedFiles func() map[string]string
	scopesAt     time.Time
	windowStart  time.Time
	prevCounts   mrcsample.Counts
}

var (
	_ CapabilityReporter = (*mrcCollector)(nil)
	_ ReadCacheScopes    = (*mrcCollector)(nil)
)

func newMRCCollector(opts Options) (Collector, error) {
	c := &mrcCollector{sysPath: opts.SysPath, window: opts.EBPF.MRCWindow, log: opts.Logger, scopes: map[fileKey]string{},
		disks: blockDeviceNames(opts.SysPath), windowStart: time.Now()}
	if c.window <= 0 {
		c.window = DefaultMRCWindow
	}
	// The set comes after the load, so a host without eBPF never pays for it. Samples can arrive
	// as soon as the program is loaded (the thresholds live in maps shared with the block
	// programs, which an earlier collector of this process may have set), so handle waits on mu
	// until the set exists; mu is released before Close, which waits for the reader.
	c.mu.Lock()
	var err error
	c.probe, err = mrcsample.Load(mrcsample.Settings{Handle: c.handle})
	if err == nil {
		c.set, err = mrc.NewSet(uint64(os.Getpagesize()), mrc.DefaultRate, mrc.DefaultMaxKeys)
	}
	if err == nil {
		err = c.pushThresholds()
	}
	if err == nil {
		c.prevCounts, err = c.probe.Counts()
	}
	c.mu.Unlock()
	if err != nil && c.probe != nil {
		c.probe.Close()
		c.probe = nil
	}
	c.ebpfLoad = newEBPFLoad("ebpf.mrc", opts, err)
	return c, nil
}

// UseReadCacheScopes sets where the read-cache scopes come from.
func (c *mrcCollector) UseReadCacheScopes(managedFiles func() map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.managedFiles = managedFiles
	c.scopesAt = time.Time{}
}

func (c *mrcCollector) handle(s mrcsample.Sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set == nil { // the collector failed to build; Close is on its way
		return
	}
	switch s.Stream {
	case mrcsample.PageCache:
		c.set.Page(s.Hash, c.scopes[fileKey{dev: s.Dev, ino: s.Inode}])
	case mrcsample.Block:
		c.set.Block(s.Hash, deviceName(c.disks, s.Dev))
	}
	if err := c.pushThresholds(); err != nil {
		c.thresholdErr = err
	}
}

// pushThresholds tells the kernel about curves that lowered their rate, so it stops handing
// over accesses no curve keeps. Called with mu held (or before the reader starts).
func (c *mrcCollector) pushThresholds() error {
	page, block := c.set.Thresholds()
	for stream, t := range [2]uint64{mrcsample.PageCache: page, mrcsample.Block: block} {
		if c.pushed[stream] == t {
			continue
		}
		if err := c.probe.SetThreshold(mrcsample.Stream(stream), t); err != nil {
			return err
		}
		c.pushed[stream] = t
	}
	return nil
}

func (c *mrcCollector) Collect(_ context.Context, sink Sink) error {
	if err := c.unavailable(); err != nil {
		return err
	}
	now := time.Now()
	disks := blockDeviceNames(c.sysPath)
	scopes, refreshScopes := c.resolveScopes(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.disks = disks
	if refreshScopes {
		c.scopes = scopes
	}
	if err := c.thresholdErr; err != nil {
		c.thresholdErr = nil
		return fmt.Errorf("miss-ratio curves: %w", err)
	}
	elapsed := now.Sub(c.windowStart)
	if elapsed < c.window {
		return nil
	}
	counts, err := c.probe.Counts()
	if err != nil {
		return err
	}
	pageAccesses := counts.Accesses[mrcsample.PageCache] - c.prevCounts.Accesses[mrcsample.PageCache]
	blockAccesses := counts.Accesses[mrcsample.Block] - c.prevCounts.Accesses[mrcsample.Block]
	lost := counts.Lost[0] + counts.Lost[1] - c.prevCounts.Lost[0] - c.prevCounts.Lost[1]
	c.prevCounts, c.windowStart = counts, now
	curves := c.set.Window(pageAccesses, blockAccesses)
	if dropped := c.set.Dropped(); dropped > 0 && c.log != nil {
		c.log.Info("miss-ratio curves: more scopes and disks than curves; the later ones have no curve", "curves", mrc.MaxCurves, "without", dropped)
	}
	c.set.Retain(func(id mrc.CurveID) bool { return c.stillThere(id, scopes, disks) })
	sampled := uint64(0)
	for _, curve := range curves {
		sampled += curve.SampledAccesses
	}
	if lost*100 > sampled {
		// Lost samples leave holes in reuse distances; past 1 % a curve could look better or
		// worse than the stream was, so the window is not sent.
		return fmt.Errorf("miss-ratio curves: %d samples lost in the kernel buffer this window (over 1 %%); curves not sent", lost)
	}
	for id, curve := range curves {
		recordCurve(sink, id, curve, elapsed)
	}
	return nil
}

// stillThere keeps a scope curve while its scope is in the policy and a disk curve while the
// disk exists.
func (c *mrcCollector) stillThere(id mrc.CurveID, scopes map[fileKey]string, disks map[bpf.Dev]string) bool {
	if id.Curve == mrc.CurveBlock {
		for _, name := range disks {
			if name == id.Scope {
				return true
			}
		}
		return false
	}
	for _, scope := range scopes {
		if scope == id.Scope {
			return true
		}
	}
	return false
}

// resolveScopes stats the read cache's managed files every scopeRefresh (outside the lock:
// stat can be slow on a network file system).
func (c *mrcCollector) resolveScopes(now time.Time) (map[fileKey]string, bool) {
	c.mu.Lock()
	managed, due := c.managedFiles, now.Sub(c.scopesAt) >= min(scopeRefresh, c.window/2)
	if due {
		c.scopesAt = now
	}
	current := c.scopes
	c.mu.Unlock()
	if !due {
		return current, false
	}
	out := map[fileKey]string{}
	if managed == nil {
		return out, true
	}
	for path, scope := range managed() {
		if dev, ino, ok := statKernelFile(path); ok {
			out[fileKey{dev: dev, ino: ino}] = scope
		}
	}
	return out, true
}

func recordCurve(sink Sink, id mrc.CurveID, c mrc.Curve, window time.Duration) {
	curve, scope := attribute.String(catalogue.AttrMRCCurve, id.Curve), attribute.String(catalogue.AttrMRCScope, id.Scope)
	for i, size := range c.SizesBytes {
		sink.SetFloat(catalogue.CacheMRCHitRatio, c.HitRatios[i], curve, scope, attribute.Int64(catalogue.AttrMRCSizeBytes, int64(size)))
	}
	sink.SetFloat(catalogue.CacheMRCSampleRate, c.SampleRate, curve, scope)
	sink.SetInt(catalogue.CacheMRCSampledAccesses, int64(c.SampledAccesses), curve, scope)
	sink.SetFloat(catalogue.CacheMRCWindow, window.Seconds(), curve, scope)
}

func (c *mrcCollector) Close() error {
	if c.probe == nil {
		return nil
	}
	return c.probe.Close()
}
