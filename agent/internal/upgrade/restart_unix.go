//go:build !windows

package upgrade

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/spindle-io/spindle/agent/internal/atomicfile"
)

const windowsServiceName = ""

// stopGrace is how long an agent has to spool its interval and exit after SIGTERM.
const stopGrace = 30 * time.Second

// detached restarts an agent that runs without a supervisor, as install.sh starts it: in a
// session of its own, its output appended to the log file and its pid in the pid file.
type detached struct {
	plan       Restart
	executable string
	configPath string
	pid        int // the agent to stop next
	child      *exec.Cmd
	exited     chan string // the child's end, once
}

func newDetached(r Restart, executable, configPath string) (*detached, error) {
	if r.PIDFile == "" || r.LogFile == "" {
		return nil, errors.New("a detached restart needs the pid file and the log file")
	}
	return &detached{plan: r, executable: executable, configPath: configPath, pid: r.AgentPID}, nil
}

func (d *detached) SwapWhileRunning() bool { return true }

// Stop sends SIGTERM and waits for the agent to exit (SIGKILL after stopGrace). The first agent
// stopped is the one that handed over (plan.AgentPID), later ones the watchdog's own children.
func (d *detached) Stop(ctx context.Context) error {
	if d.child != nil {
		_ = d.child.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.exited:
		case <-time.After(stopGrace):
			_ = d.child.Process.Kill()
			<-d.exited
		case <-ctx.Done():
			return ctx.Err()
		}
		d.child = nil
		return nil
	}
	if d.pid <= 0 {
		return nil
	}
	if err := syscall.Kill(d.pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return fmt.Errorf("stop the agent (pid %d): %w", d.pid, err)
	}
	deadline := time.Now().Add(stopGrace)
	for alive(d.pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(d.pid, syscall.SIGKILL)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// alive: signal 0 reaches it and it is not a zombie waiting for its parent.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: signal 0 is all there is
	}
	for i := len(data) - 1; i > 0; i-- { // the state follows the last ')' of the command name
		if data[i] == ')' && i+2 < len(data) {
			return data[i+2] != 'Z'
		}
	}
	return true
}

// Start runs `<executable> run --config <config>` in a new session with the log file as its
// output and writes its pid to the pid file, as install.sh does.
func (d *detached) Start(context.Context) error {
	log, err := os.OpenFile(d.plan.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Errorf("open the agent's log %s: %w", d.plan.LogFile, err)
	}
	defer log.Close()
	cmd := exec.Command(d.executable, "run", "--config", d.configPath)
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", d.executable, err)
	}
	d.child, d.exited = cmd, make(chan string, 1)
	go func(cmd *exec.Cmd, exited chan<- string) {
		err := cmd.Wait()
		if err == nil {
			exited <- "exited with status 0"
			return
		}
		exited <- err.Error() // "exit status 1", "signal: killed"
	}(cmd, d.exited)
	if err := atomicfile.Write(d.plan.PIDFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		return fmt.Errorf("write the pid file %s: %w", d.plan.PIDFile, err)
	}
	return nil
}

func (d *detached) Exited(context.Context) (bool, string) {
	if d.child == nil {
		return false, ""
	}
	select {
	case how := <-d.exited:
		d.exited <- how // keep it for Stop
		return true, how
	default:
		return false, ""
	}
}

// launchDetached starts the watchdog in a session of its own with its output in the agent's log,
// so it outlives the agent it stops.
func launchDetached(r Restart, previous string, args []string) error {
	log, err := os.OpenFile(r.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Errorf("open the agent's log %s for the watchdog: %w", r.LogFile, err)
	}
	defer log.Close()
	cmd := exec.Command(previous, args...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the upgrade watchdog: %w", err)
	}
	return cmd.Process.Release()
}
