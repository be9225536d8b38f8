//go:build !linux && !windows

package writeopt

import (
	"context"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// Feature is write optimisation; on this system (no fallocate keep-size, inotify or the ext4
// move-extent ioctl) New returns ErrUnsupported.
type Feature struct{}

// New returns ErrUnsupported on this system.
func New(Config) (*Feature, error) { return nil, ErrUnsupported }

// Apply returns ErrUnsupported on this system.
func (*Feature) Apply(context.Context, policy.WriteOptimization) error { return ErrUnsupported }

// Run returns ErrUnsupported on this system.
func (*Feature) Run(context.Context) error { return ErrUnsupported }

// DefragNow does nothing on this system.
func (*Feature) DefragNow(context.Context) int { return 0 }

// Stats is empty on this system.
func (*Feature) Stats() Stats { return Stats{} }

// Close does nothing on this system.
func (*Feature) Close() error { return nil }

// CountExtents returns ErrUnsupported on this system.
func CountExtents(string) (int, error) { return 0, ErrUnsupported }

// Probe returns ErrUnsupported twice on this system.
func Probe(string) (preallocation, defragmentation error) { return ErrUnsupported, ErrUnsupported }

// ProbeFirstWrite returns ErrUnsupported on this system.
func ProbeFirstWrite(string) error { return ErrUnsupported }

// ProbeExtentSizeHint returns ErrUnsupported on this system.
func ProbeExtentSizeHint(string) ([]string, error) { return nil, ErrUnsupported }
