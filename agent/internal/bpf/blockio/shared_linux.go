package blockio

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// LatencyHist is one CPU's cumulative histogram of one disk and operation.
type LatencyHist = blockioLatencyHist

// ownStamps makes the programs stamp every issue time themselves instead of reading the kernel's
// (a kernel without RQF_STATS as an enum, or a queue without statistics). Tests set it to run
// that path on any kernel; it applies to the next load.
var ownStamps uint32

// latencyDiskMask, when set, replaces LATENCY_DISKS - 1 at the next load: tests set 0 so that
// disks collide on the histogram array's slots and the overflow map is used.
var latencyDiskMask *uint32

// withoutMRC makes the next load leave block sampling out, as on kernels that refuse it (tests).
var withoutMRC bool

// assumeKernelStamps makes the next load start without the issue program, as on a host whose
// disks the kernel stamps, whatever this host's are (tests, with ownStamps: completions then
// find no issue time until KeepTiming attaches it).
var assumeKernelStamps bool

// shared is the process's one copy of the programs: loaded by the first Acquire, closed when
// the last user releases it.
var shared struct {
	mu     sync.Mutex
	objs   *blockioObjects
	mrcErr error // why the loaded programs cannot sample blocks, nil when they can
	users  map[Feature]int
	links  map[*ebpf.Program]link.Link
	// stampIssues is whether block_rq_issue must stamp issue times: some disk's requests are
	// not stamped by the kernel (decided at load, and for good once a completion found no
	// stamp: KeepTiming).
	stampIssues bool
}

// User is one collector's hold on the shared programs. Its methods may be called from one
// goroutine at a time; Release ends it.
type User struct {
	feature Feature
	objs    *blockioObjects
	once    sync.Once
}

// Acquire loads the programs if this is the first user, switches feature on and attaches the
// hooks it needs. Failures caused by the system (privileges, no BTF, missing tracepoints) wrap
// bpf.ErrUnsupported.
func Acquire(feature Feature) (*User, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.objs == nil {
		if err := bpf.Prepare(); err != nil {
			return nil, err
		}
		objs, mrcErr, err := load()
		if err != nil {
			return nil, err
		}
		shared.objs, shared.mrcErr = objs, mrcErr
		shared.users, shared.links = map[Feature]int{}, map[*ebpf.Program]link.Link{}
		shared.stampIssues = !assumeKernelStamps && (ownStamps != 0 || !kernelStampsEveryDisk())
	}
	if feature == MRC && shared.mrcErr != nil {
		return nil, errors.Join(shared.mrcErr, closeIfUnused())
	}
	shared.users[feature]++
	if err := apply(); err != nil {
		shared.users[feature]--
		return nil, errors.Join(err, apply(), closeIfUnused())
	}
	return &User{feature: feature, objs: shared.objs}, nil
}

// Release switches the user's feature off (when no other user has it) and detaches what no
// longer runs; the last user closes the programs and maps. Safe to call twice.
func (u *User) Release() error {
	var err error
	u.once.Do(func() {
		shared.mu.Lock()
		defer shared.mu.Unlock()
		shared.users[u.feature]--
		err = errors.Join(apply(), closeIfUnused())
	})
	return err
}

// load loads the programs with block sampling, or, where the kernel refuses that part (bpf_loop
// and ring buffers are newer than BTF tracepoints), without it: latency and split counts then
// still work, and mrcErr says why the MRC block stream cannot.
func load() (objs *blockioObjects, mrcErr, err error) {
	if !withoutMRC {
		if objs, err = loadVariant(true); err == nil {
			return objs, nil, nil
		}
		mrcErr = bpf.Explain("load the block sampling of the miss-ratio curves (needs kernel 5.17 or newer)", err)
	} else {
		mrcErr = fmt.Errorf("%w: block sampling left out (test)", bpf.ErrUnsupported)
	}
	if objs, err = loadVariant(false); err != nil {
		return nil, nil, bpf.Explain("load the block I/O programs", err)
	}
	return objs, mrcErr, nil
}

func loadVariant(withMRC bool) (*blockioObjects, error) {
	spec, err := loadBlockio()
	if err != nil {
		return nil, fmt.Errorf("parse the embedded block I/O programs: %w", err)
	}
	if err := spec.Variables["own_stamps"].Set(ownStamps); err != nil {
		return nil, fmt.Errorf("set the issue-time source: %w", err)
	}
	if latencyDiskMask != nil {
		if err := spec.Variables["latency_disk_mask"].Set(*latencyDiskMask); err != nil {
			return nil, fmt.Errorf("set the latency disk slots: %w", err)
		}
	}
	if err := spec.Variables["with_mrc"].Set(uint32(map[bool]int{false: 0, true: 1}[withMRC])); err != nil {
		return nil, fmt.Errorf("set the block sampling switch: %w", err)
	}
	if !withMRC {
		// The sampling branch is dead code for the verifier, but its ring buffer must still
		// exist as some map: a one-slot array costs nothing and loads on every kernel.
		spec.Maps["mrc_samples"] = &ebpf.MapSpec{Name: "mrc_samples", Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1}
	}
	objs := &blockioObjects{}
	if err := spec.LoadAndAssign(objs, &ebpf.CollectionOptions{Cache: bpf.KernelTypes()}); err != nil {
		return nil, err
	}
	return objs, nil
}

// apply makes the switches and attached hooks match the users. Called with mu held.
func apply() error {
	on := func(f Feature) bool { return shared.users[f] > 0 }
	objs := shared.objs
	var sw uint32
	if on(Latency) {
		sw |= uint32(Latency)
	}
	if on(MRC) {
		sw |= uint32(MRC)
	}
	if err := objs.Switches.Update(uint32(0), sw, ebpf.UpdateAny); err != nil {
		return fmt.Errorf("switch the block I/O programs: %w", err)
	}
	var errs []error
	for prog, needed := range map[*ebpf.Program]bool{
		objs.BlockRqIssue:    on(Latency) && shared.stampIssues,
		objs.BlockRqComplete: on(Latency) || on(MRC),
		objs.BlockSplit:      on(Split),
	} {
		l, attached := shared.links[prog]
		switch {
		case needed && !attached:
			l, err := link.AttachTracing(link.TracingOptions{Program: prog})
			if err != nil {
				errs = append(errs, bpf.Explain("attach the block I/O program "+prog.String(), err))
				continue
			}
			shared.links[prog] = l
		case !needed && attached:
			errs = append(errs, l.Close())
			delete(shared.links, prog)
			if prog == objs.BlockRqIssue {
				// Latency is off, so completions no longer take the stamps: forget them, or a
				// request issued before and completing after latency comes back would be timed
				// from a stale stamp.
				errs = append(errs, clearIssued(objs.Issued))
			}
		}
	}
	return errors.Join(errs...)
}

func clearIssued(m *ebpf.Map) error {
	slots := int(m.MaxEntries())
	keys := make([]uint32, slots)
	for i := range keys {
		keys[i] = uint32(i)
	}
	if _, err := m.BatchUpdate(keys, make([]blockioIssuedSlot, slots), nil); err == nil {
		return nil
	}
	var zero blockioIssuedSlot
	for _, k := range keys {
		if err := m.Update(k, zero, ebpf.UpdateAny); err != nil {
			return fmt.Errorf("clear the block I/O issue times: %w", err)
		}
	}
	return nil
}

// closeIfUnused closes everything when no feature has a user. Called with mu held.
func closeIfUnused() error {
	for _, n := range shared.users {
		if n > 0 {
			return nil
		}
	}
	var errs []error
	for prog, l := range shared.links {
		errs = append(errs, l.Close())
		delete(shared.links, prog)
	}
	errs = append(errs, shared.objs.Close())
	shared.objs = nil
	return errors.Join(errs...)
}

// latencyOps is LATENCY_OPS of blockio.bpf.c: the array holds one entry per disk slot and operation.
const latencyOps = 4

// EachLatency calls fn with every CPU's cumulative histogram of every disk (MKDEV) and operation
// seen: the per-CPU array's claimed entries, then the overflow map's (blockio.bpf.c, latency).
// One (dev, op) can come several times, from different CPUs or from both maps; fn adds them up.
func (u *User) EachLatency(fn func(dev uint32, op bpf.Op, h *LatencyHist)) error {
	var perCPU []LatencyHist
	for idx := uint32(0); idx < u.objs.Latency.MaxEntries(); idx++ {
		if err := u.objs.Latency.Lookup(idx, &perCPU); err != nil {
			return fmt.Errorf("read the block latency histograms: %w", err)
		}
		for i := range perCPU {
			if perCPU[i].Dev != 0 {
				fn(perCPU[i].Dev, bpf.Op(idx%latencyOps), &perCPU[i])
			}
		}
	}
	var key blockioLatencyKey
	it := u.objs.LatencyOverflow.Iterate()
	for it.Next(&key, &perCPU) {
		for i := range perCPU {
			fn(key.Dev, bpf.Op(key.Op), &perCPU[i])
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("read the block latency histograms: %w", err)
	}
	return nil
}

// Splits is the map of cumulative split counts (MKDEV → per-CPU count).
func (u *User) Splits() *ebpf.Map { return u.objs.Splits }

// KeepTiming attaches the issue program for good if completions arrived that neither the kernel
// nor the program had stamped since the programs were loaded without it (a disk without queue
// statistics appeared, or the kernel stopped stamping one): their latency is lost until then,
// the following I/Os are timed. The latency collector calls it on every read.
func (u *User) KeepTiming() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.stampIssues {
		return nil
	}
	n, err := sumPerCPU(u.objs.Unstamped)
	if err != nil {
		return fmt.Errorf("read the unstamped I/O count: %w", err)
	}
	if n == 0 {
		return nil
	}
	shared.stampIssues = true
	return apply()
}

// Untracked is the number of I/Os whose issue time found no free slot (so they were not
// timed), cumulative since the programs were loaded.
func (u *User) Untracked() (uint64, error) {
	n, err := sumPerCPU(u.objs.Untracked)
	if err != nil {
		return 0, fmt.Errorf("read the untracked I/O count: %w", err)
	}
	return n, nil
}

// sumPerCPU adds up the CPUs' values of a one-entry per-CPU counter.
func sumPerCPU(m *ebpf.Map) (uint64, error) {
	var perCPU []uint64
	if err := m.Lookup(uint32(0), &perCPU); err != nil {
		return 0, err
	}
	var n uint64
	for _, c := range perCPU {
		n += c
	}
	return n, nil
}

// MRCMaps are the miss-ratio-curve sampler's maps (spindle_mrc.h) by name, for the page-cache
// sampler to use instead of creating its own (ebpf.CollectionOptions.MapReplacements).
func (u *User) MRCMaps() map[string]*ebpf.Map {
	return map[string]*ebpf.Map{
		"mrc_thresholds": u.objs.MrcThresholds,
		"mrc_accesses":   u.objs.MrcAccesses,
		"mrc_lost":       u.objs.MrcLost,
		"mrc_samples":    u.objs.MrcSamples,
	}
}
