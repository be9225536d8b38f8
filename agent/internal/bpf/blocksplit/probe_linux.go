// Package blocksplit reads the split I/O counts: per disk, the bios the block layer cut because
// they exceeded the device's limits (block:block_split), counted by the shared block programs
// (blockio).
package blocksplit

import (
	"fmt"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blockio"
)

// Probe is a hold on the shared block programs with block_split attached. Read may be called
// from one goroutine at a time.
type Probe struct {
	user *blockio.User
}

// Load attaches block:block_split in the shared block programs (loading them if needed).
// Failures caused by the system wrap bpf.ErrUnsupported.
func Load() (*Probe, error) {
	user, err := blockio.Acquire(blockio.Split)
	if err != nil {
		return nil, err
	}
	return &Probe{user: user}, nil
}

// Read returns the number of splits per disk, cumulative since the programs were loaded.
func (p *Probe) Read() (map[bpf.Dev]uint64, error) {
	out := map[bpf.Dev]uint64{}
	var dev uint32
	var perCPU []uint64
	it := p.user.Splits().Iterate()
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

// Close detaches block_split (unless another user holds it) and releases the programs.
func (p *Probe) Close() error { return p.user.Release() }
