//go:build !linux

package blocksamples

import "github.com/spindle-io/spindle/agent/internal/bpf"

// Stream is the loaded program; on this system it never loads.
type Stream struct{}

// Start reports that eBPF needs Linux.
func Start(Settings) (*Stream, error) { return nil, bpf.Prepare() }

// Ring is never reached: Start fails.
func (st *Stream) Ring() *Ring { return nil }

// Lost is never reached: Start fails.
func (st *Stream) Lost() (uint64, error) { return 0, bpf.ErrUnsupported }

// Close does nothing.
func (st *Stream) Close() error { return nil }
