package mrcsample

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blockio"
)

// pollInterval bounds how long a sample waits in the kernel's buffer when the host is quiet:
// the kernel wakes the reader early only when the buffer is half full.
const pollInterval = 200 * time.Millisecond

const sampleBytes = 32 // sizeof(struct mrc_sample)

// Probe is the loaded program and the goroutine that hands samples over. The block stream comes
// from the shared block programs (blockio), which own the sampler's maps.
type Probe struct {
	block  *blockio.User
	objs   mrcsampleObjects
	links  []link.Link
	reader *ringbuf.Reader
	handle func(Sample)
	done   chan struct{}
	once   sync.Once
}

// Load switches block sampling on in the shared block programs, loads and attaches the
// page-cache programs on the same maps, and starts reading; every threshold starts at 0, so
// nothing is sampled until SetThreshold. Failures caused by the system (including kernels before
// 6.10, which lack mm_filemap_get_pages) wrap bpf.ErrUnsupported.
func Load(s Settings) (*Probe, error) {
	if s.Handle == nil {
		return nil, errors.New("mrc samples: a handler is required")
	}
	if err := bpf.Prepare(); err != nil {
		return nil, err
	}
	spec, err := loadMrcsample()
	if err != nil {
		return nil, fmt.Errorf("parse the embedded miss-ratio sampling program: %w", err)
	}
	if err := spec.Variables["page_shift"].Set(uint32(bits.TrailingZeros(uint(os.Getpagesize())))); err != nil {
		return nil, fmt.Errorf("set the page size: %w", err)
	}
	if err := spec.Variables["only_tgid"].Set(uint32(s.OnlyProcess)); err != nil {
		return nil, fmt.Errorf("set the process filter: %w", err)
	}
	block, err := blockio.Acquire(blockio.MRC)
	if err != nil {
		return nil, err
	}
	p := &Probe{block: block, handle: s.Handle, done: make(chan struct{})}
	if err := spec.LoadAndAssign(&p.objs, &ebpf.CollectionOptions{MapReplacements: block.MRCMaps(), Cache: bpf.KernelTypes()}); err != nil {
		block.Release()
		return nil, bpf.Explain("load the miss-ratio sampling program (needs the filemap tracepoints of kernel 6.10 or newer and bpf_loop)", err)
	}
	for _, prog := range []*ebpf.Program{p.objs.ReadPages, p.objs.Fault} {
		l, err := link.AttachTracing(link.TracingOptions{Program: prog})
		if err != nil {
			p.closeObjects()
			return nil, bpf.Explain("attach the miss-ratio sampling program "+prog.String(), err)
		}
		p.links = append(p.links, l)
	}
	if p.reader, err = ringbuf.NewReader(p.objs.MrcSamples); err != nil {
		p.closeObjects()
		return nil, bpf.Explain("open the miss-ratio sampling ring buffer", err)
	}
	go p.read()
	return p, nil
}

func (p *Probe) read() {
	defer close(p.done)
	var rec ringbuf.Record
	for {
		p.reader.SetDeadline(time.Now().Add(pollInterval))
		err := p.reader.ReadInto(&rec)
		switch {
		case errors.Is(err, ringbuf.ErrClosed):
			return
		case errors.Is(err, os.ErrDeadlineExceeded):
			continue
		case err != nil:
			time.Sleep(pollInterval) // only a broken epoll gets here; back off rather than spin
			continue
		}
		raw := rec.RawSample
		if len(raw) < sampleBytes {
			continue
		}
		p.handle(Sample{
			Hash:   binary.NativeEndian.Uint64(raw[0:]),
			Inode:  binary.NativeEndian.Uint64(raw[8:]),
			Index:  binary.NativeEndian.Uint64(raw[16:]),
			Dev:    bpf.Dev(binary.NativeEndian.Uint32(raw[24:])),
			Stream: Stream(binary.NativeEndian.Uint32(raw[28:])),
		})
	}
}

// SetThreshold makes the kernel keep the stream's accesses whose hash is below threshold.
func (p *Probe) SetThreshold(s Stream, threshold uint64) error {
	if err := p.objs.MrcThresholds.Update(uint32(s), threshold, ebpf.UpdateExist); err != nil {
		return fmt.Errorf("set the sampling threshold: %w", err)
	}
	return nil
}

// Counts reads the per-stream access and loss counts.
func (p *Probe) Counts() (Counts, error) {
	var c Counts
	for s := range uint32(2) {
		for _, m := range []struct {
			mp  *ebpf.Map
			out *uint64
		}{{p.objs.MrcAccesses, &c.Accesses[s]}, {p.objs.MrcLost, &c.Lost[s]}} {
			var perCPU []uint64
			if err := m.mp.Lookup(s, &perCPU); err != nil {
				return Counts{}, fmt.Errorf("read the miss-ratio sampling counts: %w", err)
			}
			for _, n := range perCPU {
				*m.out += n
			}
		}
	}
	return c, nil
}

// Close stops the reader, detaches the programs and frees the maps. Safe to call twice.
func (p *Probe) Close() error {
	var errs []error
	p.once.Do(func() {
		if p.reader != nil {
			errs = append(errs, p.reader.Close())
			<-p.done
		}
		errs = append(errs, p.closeObjects())
	})
	return errors.Join(errs...)
}

func (p *Probe) closeObjects() error {
	var errs []error
	for _, l := range p.links {
		errs = append(errs, l.Close())
	}
	p.links = nil
	return errors.Join(append(errs, p.objs.Close(), p.block.Release())...)
}
