//go:build !linux && !windows

package readcache

import (
	"context"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// Feature is the read cache; on this system it cannot work (no mincore, fadvise or mlock of
// mapped files), so New returns ErrUnsupported.
type Feature struct{}

// New returns ErrUnsupported on this system.
func New(Config, Deps) (*Feature, error) { return nil, ErrUnsupported }

// Apply returns ErrUnsupported on this system.
func (*Feature) Apply(context.Context, policy.ReadCache) error { return ErrUnsupported }

// Run returns ErrUnsupported on this system.
func (*Feature) Run(context.Context) error { return ErrUnsupported }

// Sample does nothing on this system.
func (*Feature) Sample(context.Context) {}

// ManagedFiles is empty: the read cache needs Linux.
func (*Feature) ManagedFiles() map[string]string { return nil }

// Stats is empty on this system.
func (*Feature) Stats() Stats { return Stats{} }

// Close does nothing on this system.
func (*Feature) Close() error { return nil }

// ResidencyMeasurable returns ErrUnsupported on this system.
func ResidencyMeasurable() error { return ErrUnsupported }
