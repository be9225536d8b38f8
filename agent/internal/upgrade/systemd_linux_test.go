package upgrade

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// No systemd runs on the test machines (no PID 1 systemd): these tests check the commands the
// systemd path chooses and how it reads systemctl's answers, not a real restart.

func TestUnitFromCgroup(t *testing.T) {
	cases := map[string]string{
		"0::/system.slice/spindle-agent.service\n":                                              "spindle-agent.service",
		"12:pids:/system.slice/x.service\n1:name=systemd:/system.slice/spindle-agent.service\n": "spindle-agent.service",
		"0::/user.slice/user-0.slice/session-1.scope\n":                                         "",
		"0::/system.slice/spindle-agent.service/extra\n":                                        "spindle-agent.service",
	}
	for in, want := range cases {
		if got := unitFromCgroup([]byte(in)); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

type systemctl struct {
	commands []string
	answers  []string // successive `systemctl show` outputs
}

func (s *systemctl) run(_ context.Context, name string, args ...string) ([]byte, error) {
	s.commands = append(s.commands, name+" "+strings.Join(args, " "))
	if name == "systemctl" && args[0] == "show" {
		if len(s.answers) == 0 {
			return nil, fmt.Errorf("no answer")
		}
		answer := s.answers[0]
		if len(s.answers) > 1 {
			s.answers = s.answers[1:]
		}
		return []byte(answer), nil
	}
	return nil, nil
}

func fakeSystemctl(t *testing.T, answers ...string) *systemctl {
	s := &systemctl{answers: answers}
	saved := runCommand
	runCommand = s.run
	t.Cleanup(func() { runCommand = saved })
	return s
}

func TestSystemdRestarterCommandsAndCrashLoopDetection(t *testing.T) {
	s := fakeSystemctl(t,
		"ActiveState=active\nNRestarts=2\nExecMainStatus=0\nMainPID=10\n",    // after start
		"ActiveState=active\nNRestarts=2\nExecMainStatus=0\nMainPID=10\n",    // running
		"ActiveState=activating\nNRestarts=3\nExecMainStatus=1\nMainPID=0\n", // exited, restarted by Restart=always
	)
	r, err := newSystemd(Restart{Method: "systemd", SystemdUnit: "spindle-agent.service"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.SwapWhileRunning() {
		t.Fatal("Linux replaces a running binary safely; the systemd path must swap before the restart")
	}
	ctx := context.Background()
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if exited, _ := r.Exited(ctx); exited {
		t.Fatal("a running unit was seen as exited")
	}
	exited, how := r.Exited(ctx)
	if !exited || how != "spindle-agent.service exited (exit status 1) and systemd restarted it 1 times" {
		t.Fatalf("crash loop seen as %v %q", exited, how)
	}
	want := []string{
		"systemctl stop spindle-agent.service",
		"systemctl reset-failed spindle-agent.service",
		"systemctl start spindle-agent.service",
		"systemctl show spindle-agent.service --property=ActiveState,NRestarts,ExecMainStatus,MainPID",
	}
	if got := strings.Join(s.commands[:4], "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("commands:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestSystemdRestarterSeesAFailedUnit(t *testing.T) {
	fakeSystemctl(t, "ActiveState=active\nNRestarts=0\n", "ActiveState=failed\nNRestarts=0\nExecMainStatus=203\n")
	r, _ := newSystemd(Restart{Method: "systemd", SystemdUnit: "spindle-agent.service"})
	_ = r.Start(context.Background())
	if exited, how := r.Exited(context.Background()); !exited || how != "spindle-agent.service is failed (exit status 203)" {
		t.Fatalf("%v %q", exited, how)
	}
}

func TestTheWatchdogRunsAsATransientUnitOutsideTheAgentsUnit(t *testing.T) {
	s := fakeSystemctl(t)
	if err := launch(Restart{Method: "systemd", SystemdUnit: "spindle-agent.service"}, "/var/lib/spindle/upgrade/previous/spindle-agent",
		[]string{"upgrade-watch", "--state", "/var/lib/spindle/upgrade/state.json"}); err != nil {
		t.Fatal(err)
	}
	got := s.commands[0]
	if !strings.HasPrefix(got, "systemd-run --unit=spindle-agent-upgrade-") ||
		!strings.HasSuffix(got, " --collect --quiet --description=Spindle agent upgrade watchdog -- /var/lib/spindle/upgrade/previous/spindle-agent upgrade-watch --state /var/lib/spindle/upgrade/state.json") {
		t.Fatalf("launched with %q", got)
	}
}

func TestDetectRestartPrefersSystemdWhenItRunsTheAgent(t *testing.T) {
	t.Setenv("INVOCATION_ID", "")
	u := testUpgradeConfig("/nonexistent/agent.pid")
	u.Restart = "systemd"
	r, err := DetectRestart(u, false)
	if err != nil || r.Method != "systemd" || r.SystemdUnit == "" {
		t.Fatalf("%+v %v", r, err)
	}
}
