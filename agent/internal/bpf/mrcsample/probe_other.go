//go:build !linux

package mrcsample

import "github.com/spindle-io/spindle/agent/internal/bpf"

// Probe is the loaded program; on this system it never loads.
type Probe struct{}

// Load reports that eBPF needs Linux.
func Load(Settings) (*Probe, error) { return nil, bpf.Prepare() }

// SetThreshold is never reached: Load fails.
func (p *Probe) SetThreshold(Stream, uint64) error { return bpf.ErrUnsupported }

// Counts is never reached: Load fails.
func (p *Probe) Counts() (Counts, error) { return Counts{}, bpf.ErrUnsupported }

// Close does nothing.
func (p *Probe) Close() error { return nil }
