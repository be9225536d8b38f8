package upgrade

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// runCommand runs a command and returns its output; tests replace it to see the commands the
// systemd restarter chooses (no systemd runs on the test machines).
var runCommand = func(ctx context.Context, name string, args ...string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return out, nil
}

// underSystemd: systemd sets INVOCATION_ID for the processes of every unit it starts, and
// /run/systemd/system exists while systemd is PID 1.
func underSystemd() bool {
	if os.Getenv("INVOCATION_ID") == "" {
		return false
	}
	info, err := os.Stat("/run/systemd/system")
	return err == nil && info.IsDir()
}

// systemdUnitOf is the .service unit this process runs in, from /proc/self/cgroup (cgroup v2's
// "0::/system.slice/x.service", v1's "1:name=systemd:/system.slice/x.service"), else fallback.
func systemdUnitOf(fallback string) string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return fallback
	}
	if unit := unitFromCgroup(data); unit != "" {
		return unit
	}
	return fallback
}

func unitFromCgroup(data []byte) string {
	scanner := bufio.NewScanner(bytes.NewReader(data))
	for scanner.Scan() {
		parts := strings.SplitN(scanner.Text(), ":", 3)
		if len(parts) != 3 || (parts[0] != "0" && parts[1] != "name=systemd") {
			continue
		}
		elements := strings.Split(parts[2], "/")
		for i := len(elements) - 1; i >= 0; i-- {
			if strings.HasSuffix(elements[i], ".service") {
				return elements[i]
			}
		}
	}
	return ""
}

// systemdRestarter restarts the agent's unit with systemctl. The unit's Restart=always would
// bring a crashing binary back every few seconds; the watchdog reads NRestarts to see that.
type systemdRestarter struct {
	unit     string
	restarts int // NRestarts after the last Start
}

func newSystemd(r Restart) (*systemdRestarter, error) {
	if r.SystemdUnit == "" {
		return nil, fmt.Errorf("a systemd restart needs the unit's name")
	}
	return &systemdRestarter{unit: r.SystemdUnit}, nil
}

func (s *systemdRestarter) SwapWhileRunning() bool { return true }

func (s *systemdRestarter) Stop(ctx context.Context) error {
	_, err := runCommand(ctx, "systemctl", "stop", s.unit)
	return err
}

// Start clears a failed state left by a crashing binary (its start limit) and starts the unit.
func (s *systemdRestarter) Start(ctx context.Context) error {
	_, _ = runCommand(ctx, "systemctl", "reset-failed", s.unit)
	if _, err := runCommand(ctx, "systemctl", "start", s.unit); err != nil {
		return err
	}
	props, err := s.properties(ctx)
	if err != nil {
		return err
	}
	s.restarts, _ = strconv.Atoi(props["NRestarts"])
	return nil
}

// Exited: the unit failed or stopped, or systemd restarted it since Start (it exited).
func (s *systemdRestarter) Exited(ctx context.Context) (bool, string) {
	props, err := s.properties(ctx)
	if err != nil {
		return false, ""
	}
	restarts, _ := strconv.Atoi(props["NRestarts"])
	status := props["ExecMainStatus"]
	switch {
	case props["ActiveState"] == "failed" || props["ActiveState"] == "inactive":
		return true, fmt.Sprintf("%s is %s (exit status %s)", s.unit, props["ActiveState"], status)
	case restarts > s.restarts:
		return true, fmt.Sprintf("%s exited (exit status %s) and systemd restarted it %d times", s.unit, status, restarts-s.restarts)
	}
	return false, ""
}

func (s *systemdRestarter) properties(ctx context.Context) (map[string]string, error) {
	out, err := runCommand(ctx, "systemctl", "show", s.unit, "--property=ActiveState,NRestarts,ExecMainStatus,MainPID")
	if err != nil {
		return nil, err
	}
	props := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if key, value, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			props[key] = value
		}
	}
	return props, nil
}

// launchSystemd starts the watchdog as a transient unit of its own: stopping the agent's unit
// kills every process in it, and the agent's sandbox (ProtectSystem) cannot write the binary.
func launchSystemd(previous string, args []string) error {
	unit := fmt.Sprintf("spindle-agent-upgrade-%d", time.Now().Unix())
	cmdArgs := append([]string{"--unit=" + unit, "--collect", "--quiet", "--description=Spindle agent upgrade watchdog", "--", previous}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := runCommand(ctx, "systemd-run", cmdArgs...)
	return err
}
