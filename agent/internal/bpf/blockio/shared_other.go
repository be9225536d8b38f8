//go:build !linux

package blockio

import "github.com/spindle-io/spindle/agent/internal/bpf"

// User is a hold on the shared programs; on this system they never load.
type User struct{}

// Acquire reports that eBPF needs Linux.
func Acquire(Feature) (*User, error) { return nil, bpf.Prepare() }

// Release does nothing.
func (u *User) Release() error { return nil }
