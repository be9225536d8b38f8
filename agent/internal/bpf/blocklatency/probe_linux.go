package blocklatency

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// Probe is the loaded and attached program. Read may be called from one goroutine at a time;
// Close detaches everything.
type Probe struct {
	objs  blocklatencyObjects
	links []link.Link
}

// Load loads the program and attaches it to the block tracepoints. Failures caused by the
// system (privileges, no BTF, missing tracepoints) wrap bpf.ErrUnsupported.
func Load() (*Probe, error) {
	if err := bpf.Prepare(); err != nil {
		return nil, err
	}
	p := &Probe{}
	if err := loadBlocklatencyObjects(&p.objs, nil); err != nil {
		return nil, bpf.Explain("load the block latency program", err)
	}
	for _, prog := range []*ebpf.Program{p.objs.BlockRqIssue, p.objs.BlockRqComplete} {
		l, err := link.AttachTracing(link.TracingOptions{Program: prog})
		if err != nil {
			p.Close()
			return nil, bpf.Explain("attach the block latency program to "+prog.String(), err)
		}
		p.links = append(p.links, l)
	}
	return p, nil
}

// Read returns every histogram, cumulative since Load and summed over CPUs.
func (p *Probe) Read() (map[Key]Histogram, error) {
	out := map[Key]Histogram{}
	var key blocklatencyLatencyKey
	var perCPU []blocklatencyLatencyHist
	it := p.objs.Latency.Iterate()
	for it.Next(&key, &perCPU) {
		var h Histogram
		for _, c := range perCPU {
			for i, n := range c.Slots {
				h.Counts[i] += n
			}
			h.SumNanos += c.SumNs
		}
		out[Key{Dev: bpf.Dev(key.Dev), Op: bpf.Op(key.Op)}] = h
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("read the block latency map: %w", err)
	}
	return out, nil
}

// Close detaches the program and frees its maps.
func (p *Probe) Close() error {
	var errs []error
	for _, l := range p.links {
		errs = append(errs, l.Close())
	}
	p.links = nil
	errs = append(errs, p.objs.Close())
	return errors.Join(errs...)
}
