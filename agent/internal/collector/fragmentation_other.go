//go:build !linux && !windows

package collector

import (
	"context"
	"fmt"
)

// newFragmentationCollector: extents are mapped on Linux (FIEMAP) and Windows (retrieval
// pointers) only; elsewhere the collector reports it unsupported.
func newFragmentationCollector(Options) (Collector, error) { return fragmentationUnsupported{}, nil }

type fragmentationUnsupported struct{}

func (fragmentationUnsupported) Collect(context.Context, Sink) error {
	return fmt.Errorf("fragmentation: %w", ErrUnsupported)
}

func (fragmentationUnsupported) Close() error { return nil }

func (fragmentationUnsupported) Capability() Capability {
	return Capability{Name: "fiemap.fragmentation", Reason: "extent maps are read on Linux and Windows only"}
}
