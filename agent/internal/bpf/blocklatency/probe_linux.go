package blocklatency

import (
	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blockio"
)

var _ [Slots - blockio.LatencySlots]struct{} // the two counts must agree
var _ [blockio.LatencySlots - Slots]struct{}

// Probe is a hold on the shared block programs with latency switched on. Read may be called
// from one goroutine at a time; Close releases it.
type Probe struct {
	user *blockio.User
}

// Load switches block latency on in the shared block programs (loading them if needed).
// Failures caused by the system (privileges, no BTF, missing tracepoints) wrap
// bpf.ErrUnsupported.
func Load() (*Probe, error) {
	user, err := blockio.Acquire(blockio.Latency)
	if err != nil {
		return nil, err
	}
	return &Probe{user: user}, nil
}

// Read returns every histogram, cumulative since the programs were loaded and summed over CPUs.
// It also has the programs stamp issue times from now on if the last interval's completions
// showed a disk the kernel does not stamp (blockio.User.KeepTiming).
func (p *Probe) Read() (map[Key]Histogram, error) {
	if err := p.user.KeepTiming(); err != nil {
		return nil, err
	}
	out := map[Key]Histogram{}
	err := p.user.EachLatency(func(dev uint32, op bpf.Op, c *blockio.LatencyHist) {
		key := Key{Dev: bpf.Dev(dev), Op: op}
		h := out[key]
		for i, n := range c.Slots {
			h.Counts[i] += n
		}
		h.SumNanos += c.SumNs
		out[key] = h
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Close switches latency off (unless another user holds it) and releases the programs.
func (p *Probe) Close() error { return p.user.Release() }
