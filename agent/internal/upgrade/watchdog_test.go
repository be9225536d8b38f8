package upgrade

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeAgent stands in for the agent the watchdog restarts: started, it becomes healthy (writes
// PhaseHealthy as the real agent does after the gateway's answer), exits, or does nothing.
type fakeAgent struct {
	t          *testing.T
	statePath  string
	executable string
	behaviour  func(content string) string // what the binary in place does: "healthy", "exit", "silent"
	swapWhile  bool
	started    []string // the binary content at each start
	stops      int
	exited     bool
	startErr   error
}

func (f *fakeAgent) SwapWhileRunning() bool { return f.swapWhile }
func (f *fakeAgent) Stop(context.Context) error {
	f.stops++
	return nil
}

func (f *fakeAgent) Start(context.Context) error {
	data, err := os.ReadFile(f.executable)
	if err != nil {
		f.t.Fatal(err)
	}
	f.started = append(f.started, string(data))
	if f.startErr != nil && len(f.started) == 1 {
		return f.startErr
	}
	f.exited = false
	switch f.behaviour(string(data)) {
	case "healthy":
		st, _, _ := ReadState(f.statePath)
		st.Phase = PhaseHealthy
		if err := WriteState(f.statePath, st); err != nil {
			f.t.Fatal(err)
		}
	case "exit":
		f.exited = true
	}
	return nil
}

func (f *fakeAgent) Exited(context.Context) (bool, string) { return f.exited, "exit status 1" }

func stage(t *testing.T, timeout time.Duration) (statePath, executable string) {
	t.Helper()
	dir := t.TempDir()
	executable = filepath.Join(dir, "bin", "spindle-agent")
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(executable, "0.1.0")
	write(filepath.Join(dir, "upgrade", "previous", "spindle-agent"), "0.1.0")
	write(filepath.Join(dir, "upgrade", "download", "spindle-agent-0.1.1"), "0.1.1")
	statePath = filepath.Join(dir, "upgrade", "state.json")
	err := WriteState(statePath, State{OfferHash: strings.Repeat("a", 64), From: "0.1.0", To: "0.1.1", Phase: PhaseStaged,
		Executable: executable, Staged: filepath.Join(dir, "upgrade", "download", "spindle-agent-0.1.1"),
		Previous: filepath.Join(dir, "upgrade", "previous", "spindle-agent"), HealthTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return statePath, executable
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func content(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWatchInstallsWhenTheNewAgentReportsHealthy(t *testing.T) {
	for _, swapWhile := range []bool{true, false} { // Linux, Windows
		statePath, exe := stage(t, time.Minute)
		agent := &fakeAgent{t: t, statePath: statePath, executable: exe, swapWhile: swapWhile, behaviour: func(string) string { return "healthy" }}
		st, err := Watch(context.Background(), statePath, agent, quiet)
		if err != nil || st.Phase != PhaseInstalled {
			t.Fatalf("swap while running %v: %v, phase %s (%s)", swapWhile, err, st.Phase, st.Message)
		}
		if content(t, exe) != "0.1.1" || strings.Join(agent.started, ",") != "0.1.1" || agent.stops != 1 {
			t.Fatalf("binary %q, started %v, stops %d", content(t, exe), agent.started, agent.stops)
		}
		if content(t, st.Previous) != "0.1.0" {
			t.Fatal("the previous binary was not kept")
		}
	}
}

func TestWatchRollsBackAnAgentThatExitsAtStart(t *testing.T) {
	statePath, exe := stage(t, time.Hour)
	agent := &fakeAgent{t: t, statePath: statePath, executable: exe, swapWhile: true, behaviour: func(c string) string {
		if c == "0.1.1" {
			return "exit"
		}
		return "silent"
	}}
	st, err := Watch(context.Background(), statePath, agent, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != PhaseRolledBack || !strings.Contains(st.Message, "0.1.1 stopped before it reported healthy (exit status 1)") {
		t.Fatalf("phase %s, message %q", st.Phase, st.Message)
	}
	if content(t, exe) != "0.1.0" || strings.Join(agent.started, ",") != "0.1.1,0.1.0" {
		t.Fatalf("binary %q after rollback, started %v", content(t, exe), agent.started)
	}
	if saved, _, _ := ReadState(statePath); saved.Phase != PhaseRolledBack {
		t.Fatalf("the state file says %s: the restored agent would not report the rollback", saved.Phase)
	}
}

func TestWatchRollsBackAnAgentThatNeverReportsHealthy(t *testing.T) {
	statePath, exe := stage(t, 10*WatchPoll)
	agent := &fakeAgent{t: t, statePath: statePath, executable: exe, swapWhile: true, behaviour: func(string) string { return "silent" }}
	st, err := Watch(context.Background(), statePath, agent, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != PhaseRolledBack || !strings.Contains(st.Message, "did not connect and report healthy within") || content(t, exe) != "0.1.0" {
		t.Fatalf("phase %s, message %q, binary %q", st.Phase, st.Message, content(t, exe))
	}
}

func TestWatchRollsBackWhenTheNewAgentCannotStart(t *testing.T) {
	statePath, exe := stage(t, time.Hour)
	agent := &fakeAgent{t: t, statePath: statePath, executable: exe, swapWhile: true, startErr: errors.New("exec format error"),
		behaviour: func(string) string { return "silent" }}
	st, err := Watch(context.Background(), statePath, agent, quiet)
	if err != nil || st.Phase != PhaseRolledBack || !strings.Contains(st.Message, "0.1.1 did not start: exec format error") || content(t, exe) != "0.1.0" {
		t.Fatalf("%v: phase %s, message %q, binary %q", err, st.Phase, st.Message, content(t, exe))
	}
}

func TestWatchLeavesTheOldAgentRunningWhenTheSwapFails(t *testing.T) {
	statePath, exe := stage(t, time.Hour)
	st, _, _ := ReadState(statePath)
	st.Staged = filepath.Join(t.TempDir(), "missing")
	if err := WriteState(statePath, st); err != nil {
		t.Fatal(err)
	}
	agent := &fakeAgent{t: t, statePath: statePath, executable: exe, swapWhile: true, behaviour: func(string) string { return "healthy" }}
	got, err := Watch(context.Background(), statePath, agent, quiet)
	if err != nil || got.Phase != PhaseFailed || agent.stops != 0 || len(agent.started) != 0 || content(t, exe) != "0.1.0" {
		t.Fatalf("%v: phase %s (%s), stops %d, starts %v", err, got.Phase, got.Message, agent.stops, agent.started)
	}
}

func TestWatchRefusesWithoutAStagedUpgrade(t *testing.T) {
	if _, err := Watch(context.Background(), filepath.Join(t.TempDir(), "state.json"), nil, quiet); err == nil {
		t.Fatal("watched nothing")
	}
}
