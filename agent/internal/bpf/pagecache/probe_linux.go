package pagecache

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"sync"
	"sync/atomic"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// Event indexes in the counts map (enum page_cache_event in pagecache.bpf.c).
const (
	eventRead    = 0
	eventFaulted = 1
	eventAdded   = 2
	eventDirtied = 3
)

// Probe is the loaded and attached program. Read may be called from one goroutine at a time.
type Probe struct {
	objs  pagecacheObjects
	links []link.Link
	// lastFiles is the size of the latest reading; ReadFiles may run from two collectors at once.
	lastFiles atomic.Int64
	// holdout is the control-group config as last written (probe_holdout_linux.go).
	holdoutMu sync.Mutex
	holdout   pagecacheHoldoutConfig
}

// Load loads the programs, counting system-wide, and attaches them to the filemap and
// writeback tracepoints. Failures caused by the system (including kernels before 6.10, which
// lack mm_filemap_get_pages) wrap bpf.ErrUnsupported.
func Load() (*Probe, error) { return LoadForProcess(0) }

// LoadForProcess is Load counting only the process pid (0: every process).
func LoadForProcess(pid int) (*Probe, error) {
	if err := bpf.Prepare(); err != nil {
		return nil, err
	}
	spec, err := loadPagecache()
	if err != nil {
		return nil, fmt.Errorf("parse the embedded page-cache program: %w", err)
	}
	if err := spec.Variables["page_shift"].Set(uint32(bits.TrailingZeros(uint(os.Getpagesize())))); err != nil {
		return nil, fmt.Errorf("set the page size: %w", err)
	}
	if err := spec.Variables["only_tgid"].Set(uint32(pid)); err != nil {
		return nil, fmt.Errorf("set the process filter: %w", err)
	}
	p := &Probe{}
	if err := spec.LoadAndAssign(&p.objs, &ebpf.CollectionOptions{Cache: bpf.KernelTypes()}); err != nil {
		return nil, bpf.Explain("load the page-cache program (needs the filemap tracepoints of kernel 6.10 or newer)", err)
	}
	for _, prog := range []*ebpf.Program{p.objs.ReadPages, p.objs.Fault, p.objs.PageAdded, p.objs.PageDirtied, p.objs.PageDeleted} {
		l, err := link.AttachTracing(link.TracingOptions{Program: prog})
		if err != nil {
			p.Close()
			return nil, bpf.Explain("attach the page-cache program "+prog.String(), err)
		}
		p.links = append(p.links, l)
	}
	return p, nil
}

// Read returns the counts, cumulative since Load.
func (p *Probe) Read() (Counts, error) {
	var c Counts
	for event, field := range map[uint32]*uint64{eventRead: &c.Read, eventFaulted: &c.Faulted,
		eventAdded: &c.Added, eventDirtied: &c.Dirtied} {
		var perCPU []uint64
		if err := p.objs.Counts.Lookup(event, &perCPU); err != nil {
			return Counts{}, fmt.Errorf("read the page-cache counts: %w", err)
		}
		for _, n := range perCPU {
			*field += n
		}
	}
	return c, nil
}

// ReadFiles returns the counts of every file the program holds, cumulative since the file
// entered the map (at Load, or again after an eviction), sorted by file. At most MaxFiles
// entries.
func (p *Probe) ReadFiles() (Files, error) {
	// Sized for the previous reading, so the slice is not regrown (and copied) as it fills.
	last := int(p.lastFiles.Load())
	out := make(Files, 0, last+last/8+16)
	put := func(key pagecacheFileKey, value pagecacheFileCounts) {
		out = append(out, FileCounts{ID: fileIDFromKernel(key.Dev, key.Ino), Counts: Counts{Read: value.N[eventRead],
			Faulted: value.N[eventFaulted], Added: value.N[eventAdded], Dirtied: value.N[eventDirtied]}})
	}
	done := func() Files {
		out.Sort()
		p.lastFiles.Store(int64(len(out)))
		return out
	}
	// Batches cost a few system calls for the whole map; one-by-one iteration (kernels before
	// 5.6, or a batch refused) costs two per file.
	if err := p.readFilesInBatches(put); err == nil {
		return done(), nil
	}
	out = out[:0]
	var key pagecacheFileKey
	var value pagecacheFileCounts
	entries := p.objs.Files.Iterate()
	for entries.Next(&key, &value) {
		put(key, value)
	}
	if err := entries.Err(); err != nil {
		return nil, fmt.Errorf("read the per-file page-cache counts: %w", err)
	}
	return done(), nil
}

const fileBatch = 1024

func (p *Probe) readFilesInBatches(put func(pagecacheFileKey, pagecacheFileCounts)) error {
	keys := make([]pagecacheFileKey, fileBatch)
	values := make([]pagecacheFileCounts, fileBatch)
	var cursor ebpf.MapBatchCursor
	for {
		n, err := p.objs.Files.BatchLookup(&cursor, keys, values, nil)
		for i := range n {
			put(keys[i], values[i])
		}
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Close detaches the programs and frees the maps.
func (p *Probe) Close() error {
	var errs []error
	for _, l := range p.links {
		errs = append(errs, l.Close())
	}
	p.links = nil
	errs = append(errs, p.objs.Close())
	return errors.Join(errs...)
}
