package policystate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// EBPFState says what the agent's eBPF collectors did at start.
type EBPFState struct {
	// Loaded: at least one eBPF program runs.
	Loaded bool
	// Missing explains, per missing capability, why it could not load ("" when all loaded).
	Missing string
}

// TelemetryApplier applies the policy's telemetry section: the sampling interval takes effect
// at once; eBPF is checked against what loaded at start (programs are loaded once, at start).
type TelemetryApplier struct {
	// SetInterval changes the run loop's sampling interval. Required.
	SetInterval func(time.Duration)
	// EBPF reports what loaded. Required.
	EBPF func() EBPFState
	// FragmentationScan applies telemetry.fragmentationScan; nil means this agent has no
	// fragmentation scanner and a policy naming scan paths is refused.
	FragmentationScan func(ctx context.Context, scan policy.FragmentationScan) error
	// NoFragmentationScanner says why FragmentationScan is nil (the scanner is switched off in
	// agent.yaml, or FIEMAP is Linux-only), for the refusal; "" means this agent version has none.
	NoFragmentationScanner string
}

var _ Applier = (*TelemetryApplier)(nil)

func (t *TelemetryApplier) Name() string { return "telemetry" }

func (t *TelemetryApplier) Check(p policy.Policy) error {
	var errs []error
	state := t.EBPF()
	switch p.Telemetry.EBPF {
	case policy.EBPFOn:
		if !state.Loaded || state.Missing != "" {
			errs = append(errs, fmt.Errorf(`telemetry.ebpf is "on" but eBPF cannot be used on this server (%s); set it to "auto" to fall back to /proc, or make eBPF available (kernel with BTF, root or CAP_BPF+CAP_PERFMON, and ebpf not "off" in agent.yaml) and restart the agent`, missingText(state)))
		}
	case policy.EBPFOff:
		if state.Loaded {
			errs = append(errs, errors.New(`telemetry.ebpf is "off" but this agent loaded its eBPF programs at start and cannot unload them while running; set "ebpf: off" in agent.yaml and restart the agent, or use "auto" in the policy`))
		}
	}
	if len(p.Telemetry.FragmentationScan.Paths) > 0 && t.FragmentationScan == nil {
		if t.NoFragmentationScanner != "" {
			errs = append(errs, fmt.Errorf("telemetry.fragmentationScan.paths is set but this agent's fragmentation scanner is not running (%s); leave the paths empty for this server", t.NoFragmentationScanner))
		} else {
			errs = append(errs, errors.New("telemetry.fragmentationScan.paths is set but this agent version has no fragmentation scanner; upgrade the agent or leave the paths empty"))
		}
	}
	return errors.Join(errs...)
}

func (t *TelemetryApplier) Apply(ctx context.Context, p policy.Policy) error {
	if t.FragmentationScan != nil {
		if err := t.FragmentationScan(ctx, p.Telemetry.FragmentationScan); err != nil {
			return err
		}
	}
	t.SetInterval(time.Duration(p.Telemetry.IntervalSeconds) * time.Second)
	return nil
}

func missingText(s EBPFState) string {
	if s.Missing != "" {
		return s.Missing
	}
	return "no eBPF program loaded"
}
