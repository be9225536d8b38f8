package policystate

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// Feature is an acceleration feature a policy switches (the read cache, write optimisation).
// internal/accel's packages implement it; the run loop hands them to NewFeatureApplier.
type Feature interface {
	// Supported returns nil, or why this host cannot run the feature (wrapping
	// accel.ErrUnsupported), in words the person who wrote the policy can act on.
	Supported() error
	// Apply starts, reconfigures or stops the feature for p. On error the feature must be as it
	// was before the call.
	Apply(ctx context.Context, p policy.Policy) error
}

// FeatureApplier adapts a Feature to the Applier contract. A policy that enables the feature is
// refused when the feature is missing from this build, needs another OS, or is unsupported here;
// a policy that leaves it off always applies.
type FeatureApplier struct {
	name    string
	enabled func(policy.Policy) bool
	feature Feature // nil: not part of this build
}

var _ Applier = (*FeatureApplier)(nil)

// NewReadCacheApplier applies policy.readCache through feature (nil until the read cache is wired).
func NewReadCacheApplier(feature Feature) *FeatureApplier {
	return &FeatureApplier{name: "read cache", feature: feature,
		enabled: func(p policy.Policy) bool { return p.ReadCache.Enabled }}
}

// NewWriteOptimizationApplier applies policy.writeOptimization through feature (nil until wired).
func NewWriteOptimizationApplier(feature Feature) *FeatureApplier {
	return &FeatureApplier{name: "write optimisation", feature: feature,
		enabled: func(p policy.Policy) bool { return p.WriteOptimization.Enabled }}
}

func (f *FeatureApplier) Name() string { return f.name }

func (f *FeatureApplier) Check(p policy.Policy) error {
	if !f.enabled(p) {
		return nil
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "windows" {
		return fmt.Errorf("the %s works on Linux and Windows only and this server runs %s; switch it off in this server's policy", f.name, runtime.GOOS)
	}
	if f.feature == nil {
		return fmt.Errorf("this agent version has no %s; upgrade the agent, or switch the %s off in this server's policy", f.name, f.name)
	}
	if err := f.feature.Supported(); err != nil {
		return fmt.Errorf("the %s cannot run on this server: %w", f.name, err)
	}
	return nil
}

func (f *FeatureApplier) Apply(ctx context.Context, p policy.Policy) error {
	if f.feature == nil {
		return nil // Check refused every policy that needs it
	}
	return f.feature.Apply(ctx, p)
}
