package collector

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// EBPFMode is the agent's `ebpf` setting.
type EBPFMode string

const (
	// EBPFAuto uses every program that loads; one that does not is a missing capability.
	EBPFAuto EBPFMode = "auto"
	// EBPFOn expects every enabled program to load: a failure is a collector error in status.
	EBPFOn EBPFMode = "on"
	// EBPFOff loads nothing; the eBPF collectors are not built.
	EBPFOff EBPFMode = "off"
)

// EBPFOptions configure the eBPF collectors.
type EBPFOptions struct {
	Mode EBPFMode
	// page_cache: files reported per interval, the most accessed (0: DefaultPageCacheTopFiles)
	PageCacheTopFiles int
	// mrc: the span of each miss-ratio curve (0: DefaultMRCWindow)
	MRCWindow time.Duration
}

// ebpfLoad remembers whether a collector's program loaded, and answers for it in Collect and
// as a capability. The program is loaded when the collector is built, so the capability is
// known before the first tick (it goes into the batch resource).
type ebpfLoad struct {
	capability string
	mode       EBPFMode
	err        error // nil when loaded
}

func newEBPFLoad(capability string, opts Options, err error) ebpfLoad {
	l := ebpfLoad{capability: capability, mode: opts.EBPF.Mode, err: err}
	if err != nil && opts.Logger != nil {
		level := slog.LevelInfo
		if l.mode == EBPFOn {
			level = slog.LevelError
		}
		opts.Logger.Log(context.Background(), level, "eBPF program did not load; the agent carries on with /proc data",
			"capability", capability, "ebpf", string(l.mode), "reason", err)
	}
	return l
}

// unavailable is what Collect returns while the program is not loaded: ErrUnsupported in
// auto mode (a missing capability, logged once), a plain error in on mode (degraded status).
func (l ebpfLoad) unavailable() error {
	if l.err == nil {
		return nil
	}
	if l.mode == EBPFOn {
		return fmt.Errorf("ebpf is on but %s could not load: %w", l.capability, l.err)
	}
	return fmt.Errorf("%w: %w", ErrUnsupported, l.err)
}

// Capability reports the program as available or missing with the reason.
func (l ebpfLoad) Capability() Capability {
	if l.err == nil {
		return Capability{Name: l.capability, Available: true}
	}
	return Capability{Name: l.capability, Reason: l.err.Error()}
}
