//go:build !linux

package collector

import (
	"context"
	"fmt"
)

// newFragmentationCollector: FIEMAP is a Linux ioctl; the collector reports it unsupported.
func newFragmentationCollector(Options) (Collector, error) { return fragmentationUnsupported{}, nil }

type fragmentationUnsupported struct{}

func (fragmentationUnsupported) Collect(context.Context, Sink) error {
	return fmt.Errorf("fragmentation: %w", ErrUnsupported)
}

func (fragmentationUnsupported) Close() error { return nil }

func (fragmentationUnsupported) Capability() Capability {
	return Capability{Name: "fiemap.fragmentation", Reason: "FIEMAP is Linux-only"}
}
