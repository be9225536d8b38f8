package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/opamp"
	"github.com/spindle-io/spindle/agent/internal/policy"
	"github.com/spindle-io/spindle/agent/internal/policystate"
	"github.com/spindle-io/spindle/agent/internal/status"
	"github.com/spindle-io/spindle/agent/internal/upgrade"
)

// policyWiring is the policy's part of the run loop: the manager that applies what the gateway
// pushes, the OpAMP client that receives it, and the sampling interval the policy controls.
type policyWiring struct {
	manager *policystate.Manager
	client  *opamp.Client
	// interval is read by the loop and written by the telemetry applier (OpAMP's goroutine).
	interval        chan time.Duration // buffered 1: the newest interval for the loop to pick up
	currentInterval atomicDuration
}

// startPolicy restores the last known good policy (before connecting, so it is in force even
// when the gateway is unreachable) and starts the OpAMP client. Appliers run in this order
// (policy roots, telemetry, read cache, write optimisation) and roll back in reverse when one fails.
func (a *agent) startPolicy(ctx context.Context) error {
	a.policy.interval = make(chan time.Duration, 1)
	a.policy.currentInterval.Store(a.cfg.Interval)
	// The host's policy_roots first: a policy naming a path outside them is refused whole.
	appliers := append([]policystate.Applier{policystate.NewRootsApplier(a.cfg.PolicyRoots, a.configPath), a.telemetryApplier()},
		a.accel.appliers()...)
	a.policy.manager = policystate.NewManager(filepath.Join(a.cfg.StateDir, policystate.FileName), appliers...)
	restored, err := a.policy.manager.Restore(ctx)
	if err != nil {
		// The agent still runs (on agent.yaml's settings); the gateway sends the policy again.
		a.log.Error("could not restore the last known good policy", "error", err)
	} else if restored {
		a.log.Info("restored the last known good policy", "hash", a.policy.manager.State().Hash,
			"interval", a.currentInterval().String())
	}
	upgrades, err := upgrade.NewManager(upgrade.Settings{
		Dir: a.cfg.UpgradeDir(), ConfigPath: a.configPath, Version: a.opts.Version, Upgrade: a.cfg.Upgrade,
		SigningPublicKey: a.cfg.SigningPublicKey, AsWindowsService: a.opts.WindowsService, Logger: a.log,
	})
	if err != nil {
		// Upgrades are then refused; everything else runs.
		a.log.Error("agent upgrades are unavailable", "error", err)
		upgrades = nil
	} else if c := upgrades.Capability(); c.Remote {
		a.log.Info("takes upgrades from the console over OpAMP", "install_method", c.InstallMethod)
	} else {
		// Said once at start, so the operator of a package-managed server reads how to upgrade it.
		a.log.Info("does not replace its own binary on an upgrade from the console", "install_method", c.InstallMethod, "reason", c.Reason)
	}
	client, err := opamp.New(opamp.Settings{
		Gateway: a.cfg.Gateway, Credential: a.cfg.Credential, CredentialFunc: a.cred.Secret, AgentID: a.cfg.AgentID, Version: a.opts.Version,
		Host: a.host, Capabilities: collector.AvailableCapabilities(a.caps), Policy: a.policy.manager, Logger: a.log, Upgrades: upgrades,
	})
	if err != nil {
		return fmt.Errorf("OpAMP client: %w", err)
	}
	a.policy.client = client
	client.Start(context.WithoutCancel(ctx))
	return nil
}

// telemetryApplier applies the interval to the loop and the fragmentation scan to the scanner.
func (a *agent) telemetryApplier() *policystate.TelemetryApplier {
	t := &policystate.TelemetryApplier{SetInterval: a.setInterval, EBPF: func() policystate.EBPFState { return ebpfState(a.caps) }}
	if a.scanner == nil {
		t.NoFragmentationScanner = capabilityReason(a.caps, "fiemap.fragmentation")
		return t
	}
	t.FragmentationScan = func(_ context.Context, scan policy.FragmentationScan) error {
		a.scanner.SetPolicyScan(scan.Paths, time.Duration(scan.PeriodSeconds)*time.Second)
		return nil
	}
	return t
}

func capabilityReason(caps []collector.Capability, name string) string {
	for _, c := range caps {
		if c.Name == name {
			return c.Reason
		}
	}
	return ""
}

func (a *agent) stopPolicy() {
	if a.policy.client != nil {
		a.policy.client.Stop()
	}
}

// setInterval is the telemetry applier's hook: the loop resets its ticker at its next turn.
func (a *agent) setInterval(d time.Duration) {
	if a.policy.currentInterval.Swap(d) == d {
		return
	}
	select {
	case <-a.policy.interval: // drop an interval the loop has not picked up yet
	default:
	}
	a.policy.interval <- d
	a.log.Info("sampling interval set by policy", "interval", d.String())
}

func (a *agent) currentInterval() time.Duration { return a.policy.currentInterval.Load() }

// ebpfState summarises the eBPF capabilities found at start for the telemetry applier.
func ebpfState(caps []collector.Capability) policystate.EBPFState {
	var state policystate.EBPFState
	var missing []string
	seen := false
	for _, c := range caps {
		if !strings.HasPrefix(c.Name, "ebpf.") {
			continue
		}
		seen = true
		if c.Available {
			state.Loaded = true
		} else {
			missing = append(missing, c.Name+": "+c.Reason)
		}
	}
	if !seen {
		missing = append(missing, "this agent has no eBPF collectors on "+runtime.GOOS)
	}
	state.Missing = strings.Join(missing, "; ")
	return state
}

// policyStatus is the policy's part of status.json.
func (a *agent) policyStatus() *status.Policy {
	if a.policy.manager == nil {
		return nil
	}
	p := &status.Policy{State: a.policy.manager.State()}
	if a.policy.client != nil {
		c := a.policy.client.Status()
		p.OpAMPTransport, p.OpAMPConnected, p.OpAMPLastError = string(c.Transport), c.Connected, c.LastError
	}
	return p
}
