package upgrade

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/config"
)

// Restarter stops and starts the agent for the watchdog, the way the agent runs.
type Restarter interface {
	// SwapWhileRunning: the binary can be replaced before the agent stops (not on Windows,
	// where a running executable cannot be overwritten).
	SwapWhileRunning() bool
	// Stop stops the agent that runs now, and waits for it to be gone.
	Stop(ctx context.Context) error
	// Start starts the agent from the executable in place.
	Start(ctx context.Context) error
	// Exited reports, without blocking, that the agent started last has stopped already, and how.
	Exited(ctx context.Context) (bool, string)
}

// ErrCannotRestart: the agent does not run in a way it can restart itself (a terminal, a
// supervisor it does not know); the offer is refused with the reason.
var ErrCannotRestart = errors.New("this agent cannot restart itself")

// DetectRestart decides how this agent restarts: what agent.yaml says, or with `auto` systemd
// when systemd runs it, the Windows service when the SCM runs it, detached when install.sh's pid
// file names it.
func DetectRestart(u config.UpgradeConfig, asWindowsService bool) (Restart, error) {
	u = u.WithDefaults()
	detached := Restart{Method: config.RestartDetached, PIDFile: u.PIDFile, LogFile: u.LogFile, AgentPID: os.Getpid()}
	switch u.Restart {
	case config.RestartSystemd:
		return Restart{Method: config.RestartSystemd, SystemdUnit: systemdUnitOf(u.SystemdUnit)}, nil
	case config.RestartWindowsService:
		return Restart{Method: config.RestartWindowsService, ServiceName: windowsServiceName}, nil
	case config.RestartDetached:
		return detached, nil
	}
	if asWindowsService {
		return Restart{Method: config.RestartWindowsService, ServiceName: windowsServiceName}, nil
	}
	if underSystemd() {
		return Restart{Method: config.RestartSystemd, SystemdUnit: systemdUnitOf(u.SystemdUnit)}, nil
	}
	if pid, err := readPID(u.PIDFile); err == nil && pid == os.Getpid() {
		return detached, nil
	}
	return Restart{}, fmt.Errorf("%w: it runs neither under systemd, as the Windows service, nor detached with its pid in %s "+
		"(as install.sh starts it); restart it yourself after replacing the binary, or set upgrade.restart in agent.yaml", ErrCannotRestart, u.PIDFile)
}

func readPID(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s holds no pid", path)
	}
	return pid, nil
}

// NewRestarter is the restarter for a plan's method, run by the watchdog.
func NewRestarter(r Restart, executable, configPath string) (Restarter, error) {
	switch r.Method {
	case config.RestartDetached:
		return newDetached(r, executable, configPath)
	case config.RestartSystemd:
		return newSystemd(r)
	case config.RestartWindowsService:
		return newWindowsService(r)
	}
	return nil, fmt.Errorf("unknown restart method %q", r.Method)
}
