package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Upgrade defaults (docs/install.md, "Upgrades").
const (
	DefaultUpgradeHealthTimeout = 2 * time.Minute
	minUpgradeHealthTimeout     = 10 * time.Second
	maxUpgradeHealthTimeout     = 30 * time.Minute
	DefaultSystemdUnit          = "spindle-agent.service"
	// The detached agent's files, as install.sh writes them when there is no systemd.
	DefaultDetachedPIDFile = "/run/spindle/agent.pid"
	DefaultDetachedLogFile = "/var/log/spindle/agent.log"
)

// Restart methods: how the agent restarts itself onto a new binary.
const (
	RestartAuto           = "auto"
	RestartSystemd        = "systemd"
	RestartWindowsService = "windows-service"
	RestartDetached       = "detached"
)

// UpgradeConfig is how the agent takes the upgrades the gateway offers over OpAMP.
type UpgradeConfig struct {
	// Enabled accepts upgrades (default true). Off, the agent reports every offer as refused.
	Enabled *bool `yaml:"enabled,omitempty"`
	// HealthTimeout bounds how long the new agent has to connect and be answered by the gateway
	// before the watchdog brings the previous binary back (default 2m, 10s to 30m).
	HealthTimeout time.Duration `yaml:"health_timeout,omitempty"`
	// Restart is auto (systemd when it runs the agent, the Windows service, or detached when the
	// pid file names this agent), or one of systemd, windows-service, detached.
	Restart string `yaml:"restart,omitempty"`
	// SystemdUnit is the unit restarted under systemd (default spindle-agent.service).
	SystemdUnit string `yaml:"systemd_unit,omitempty"`
	// PIDFile and LogFile are the detached agent's files (install.sh's defaults).
	PIDFile string `yaml:"pid_file,omitempty"`
	LogFile string `yaml:"log_file,omitempty"`
}

// UpgradesEnabled resolves the switch.
func (u UpgradeConfig) UpgradesEnabled() bool { return u.Enabled == nil || *u.Enabled }

// WithDefaults fills what is unset.
func (u UpgradeConfig) WithDefaults() UpgradeConfig {
	if u.HealthTimeout == 0 {
		u.HealthTimeout = DefaultUpgradeHealthTimeout
	}
	if u.Restart == "" {
		u.Restart = RestartAuto
	}
	if u.SystemdUnit == "" {
		u.SystemdUnit = DefaultSystemdUnit
	}
	if u.PIDFile == "" {
		u.PIDFile = DefaultDetachedPIDFile
	}
	if u.LogFile == "" {
		u.LogFile = DefaultDetachedLogFile
	}
	return u
}

func (u UpgradeConfig) validate() error {
	var errs []error
	if t := u.HealthTimeout; t != 0 && (t < minUpgradeHealthTimeout || t > maxUpgradeHealthTimeout) {
		errs = append(errs, fmt.Errorf("upgrade.health_timeout %s must be between %s and %s", t, minUpgradeHealthTimeout, maxUpgradeHealthTimeout))
	}
	switch u.Restart {
	case "", RestartAuto, RestartSystemd, RestartWindowsService, RestartDetached:
	default:
		errs = append(errs, fmt.Errorf("upgrade.restart %q is not one of auto, systemd, windows-service, detached", u.Restart))
	}
	for name, p := range map[string]string{"upgrade.pid_file": u.PIDFile, "upgrade.log_file": u.LogFile} {
		if p != "" && !filepath.IsAbs(p) {
			errs = append(errs, fmt.Errorf("%s must be an absolute path, got %q", name, p))
		}
	}
	return errors.Join(errs...)
}

// UpgradeDir holds what an upgrade stages: the download, the previous binary, the watchdog's plan
// and the outcome the next agent reports.
func (c Config) UpgradeDir() string { return filepath.Join(c.StateDir, "upgrade") }
