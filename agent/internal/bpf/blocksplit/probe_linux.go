// Package blocksplit loads the split I/O program: a count per disk of the bios the block layer
// cut because they exceeded the device's limits (block:block_split).
package blocksplit

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf/link"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// Probe is the loaded and attached program. Read may be called from one goroutine at a time.
type Probe struct {
	objs blocksplitObjects
	link link.Link
}

// Load loads the program and attaches it to block:block_split. Failures caused by the system
// wrap bpf.ErrUnsupported.
func Load() (*Probe, error) {
	if err := bpf.Prepare(); err != nil {
		return nil, err
	}
	p := &Probe{}
	if err := loadBlocksplitObjects(&p.objs, nil); err != nil {
		return nil, bpf.Explain("load the split I/O program", err)
	}
	l, err := link.AttachTracing(link.TracingOptions{Program: p.objs.BlockSplit})
	if err != nil {
		p.Close()
		return nil, bpf.Explain("attach the split I/O program to block:block_split", err)
	}
	p.link = l
	return p, nil
}

// Read returns the number of splits per disk, cumulative since Load.
func (p *Probe) Read() (map[bpf.Dev]uint64, error) {
	out := map[bpf.Dev]uint64{}
	var dev uint32
	var perCPU []uint64
	it := p.objs.Splits.Iterate()
	for it.Next(&dev, &perCPU) {
		var n uint64
		for _, c := range perCPU {
			n += c
		}
		out[bpf.Dev(dev)] = n
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("read the split I/O map: %w", err)
	}
	return out, nil
}

// Close detaches the program and frees its map.
func (p *Probe) Close() error {
	var errs []error
	if p.link != nil {
		errs = append(errs, p.link.Close())
		p.link = nil
	}
	errs = append(errs, p.objs.Close())
	return errors.Join(errs...)
}
