//go:build !windows

package upgrade

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A stand-in agent binary: a shell script that logs its arguments and then behaves as told.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spindle-agent")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho \"started with $*\"\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDetachedStartsLikeInstallShAndSeesAnExit(t *testing.T) {
	dir := t.TempDir()
	plan := Restart{Method: "detached", PIDFile: filepath.Join(dir, "run", "agent.pid"), LogFile: filepath.Join(dir, "agent.log")}
	d, err := newDetached(plan, script(t, "exit 3"), "/etc/spindle/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid, err := readPID(plan.PIDFile)
	if err != nil || pid <= 0 {
		t.Fatalf("pid file: %v", err)
	}
	var how string
	waitFor(t, "the exit", func() bool { exited, h := d.Exited(context.Background()); how = h; return exited })
	if how != "exit status 3" {
		t.Fatalf("exit seen as %q", how)
	}
	waitFor(t, "the log line", func() bool {
		data, _ := os.ReadFile(plan.LogFile)
		return strings.Contains(string(data), "started with run --config /etc/spindle/agent.yaml")
	})
	if err := d.Stop(context.Background()); err != nil {
		t.Fatalf("stopping an agent that exited: %v", err)
	}
}

func TestDetachedStopsTheAgentThatHandedOverThenItsOwnChild(t *testing.T) {
	dir := t.TempDir()
	// The agent that handed over: a process outside the restarter, as install.sh started it.
	old, err := os.StartProcess("/bin/sh", []string{"sh", "-c", "trap 'exit 0' TERM; while :; do sleep 0.05; done"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = old.Wait() }()
	plan := Restart{Method: "detached", PIDFile: filepath.Join(dir, "agent.pid"), LogFile: filepath.Join(dir, "agent.log"), AgentPID: old.Pid}
	d, err := newDetached(plan, script(t, "trap 'exit 0' TERM; while :; do sleep 0.05; done"), "/cfg")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the old agent to be gone", func() bool { return !alive(old.Pid) })
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid, _ := readPID(plan.PIDFile)
	if exited, _ := d.Exited(context.Background()); exited {
		t.Fatal("a running child was seen as exited")
	}
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Fatalf("the child %d still runs after Stop", pid)
	}
}

func TestDetectRestartFindsTheDetachedAgentByItsPidFile(t *testing.T) {
	t.Setenv("INVOCATION_ID", "")
	pidFile := filepath.Join(t.TempDir(), "agent.pid")
	u := testUpgradeConfig(pidFile)
	if _, err := DetectRestart(u, false); err == nil || !strings.Contains(err.Error(), "restart it yourself") {
		t.Fatalf("no pid file: %v", err)
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := DetectRestart(u, false)
	if err != nil || r.Method != "detached" || r.AgentPID != os.Getpid() || r.PIDFile != pidFile {
		t.Fatalf("%+v, %v", r, err)
	}
	if err := os.WriteFile(pidFile, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := DetectRestart(u, false); err == nil {
		t.Fatal("a pid file naming another process was taken as this agent's")
	}
}
