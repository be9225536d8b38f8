package upgrade

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
)

type reports struct {
	mu  sync.Mutex
	got []Status
}

func (r *reports) add(s Status) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, s)
}

func (r *reports) states() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.got {
		out = append(out, string(s.State))
	}
	return strings.Join(out, ",")
}

func (r *reports) last() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[len(r.got)-1]
}

// managerFor runs as a detached agent (its pid in the pid file) of version 0.1.0, with the release's key.
func managerFor(t *testing.T, r *release, version string, launch func(Restart, string, []string) error) (*Manager, *reports, string) {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "spindle-agent")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte(version), 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "agent.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("INVOCATION_ID", "")
	t.Setenv(InstallMethodEnv, "")
	key := ""
	if r != nil {
		key = publicPEM(t, r.key)
	}
	m, err := NewManager(Settings{Dir: filepath.Join(dir, "state", "upgrade"), ConfigPath: filepath.Join(dir, "agent.yaml"), Version: version,
		Upgrade:          config.UpgradeConfig{PIDFile: pidFile, LogFile: filepath.Join(dir, "agent.log"), HealthTimeout: time.Minute},
		SigningPublicKey: key, Logger: quiet, Executable: exe, Launch: launch})
	if err != nil {
		t.Fatal(err)
	}
	got := &reports{}
	m.SetReporter(got.add)
	return m, got, dir
}

func TestOfferDownloadsVerifiesStagesAndHandsOverToTheWatchdog(t *testing.T) {
	r := newRelease(t, []byte("0.1.1"))
	launched := make(chan []string, 1)
	m, got, dir := managerFor(t, r, "0.1.0", func(restart Restart, previous string, args []string) error {
		launched <- append([]string{restart.Method, previous}, args...)
		return nil
	})
	if c := m.Capability(); !c.Remote || c.InstallMethod != "script" {
		t.Fatalf("capability %+v", c)
	}
	m.Offer(r.offer())
	var args []string
	select {
	case args = <-launched:
	case <-time.After(30 * time.Second):
		t.Fatalf("no watchdog launched; reports %s", got.states())
	}
	statePath := filepath.Join(dir, "state", "upgrade", "state.json")
	if strings.Join(args, " ") != "detached "+filepath.Join(dir, "state", "upgrade", "previous", "spindle-agent")+" upgrade-watch --state "+statePath {
		t.Fatalf("watchdog launched as %v", args)
	}
	st, ok, err := ReadState(statePath)
	if err != nil || !ok || st.Phase != PhaseStaged || st.From != "0.1.0" || st.To != "0.1.1" || content(t, st.Staged) != "0.1.1" || content(t, st.Previous) != "0.1.0" {
		t.Fatalf("state %+v (%v)", st, err)
	}
	if got.states() != "downloading,installing" {
		t.Fatalf("reported %s", got.states())
	}
}

func TestATamperedOfferIsReportedFailedAndNeverRetried(t *testing.T) {
	r := newRelease(t, []byte("0.1.1"))
	offer := r.offer()
	r.binary = []byte("evil") // altered between the gateway and the agent
	m, got, _ := managerFor(t, r, "0.1.0", func(Restart, string, []string) error { t.Fatal("a tampered binary reached the watchdog"); return nil })
	m.Offer(offer)
	waitFor(t, "the refusal", func() bool { return strings.HasSuffix(got.states(), "failed") })
	if msg := got.last().Message; !strings.Contains(msg, "upgrade refused") || !strings.Contains(msg, "altered or corrupted") {
		t.Fatalf("refused with %q", msg)
	}
	waitFor(t, "the manager to be free", func() bool { m.mu.Lock(); defer m.mu.Unlock(); return !m.busy })
	m.Offer(offer) // the same attempt again: the outcome is said again, nothing is downloaded
	waitFor(t, "the repeated outcome", func() bool { return got.states() == "downloading,failed,failed" })
}

func TestOffersAnAgentCannotTakeAreRefusedWithTheReason(t *testing.T) {
	r := newRelease(t, []byte("0.1.1"))
	m, got, _ := managerFor(t, r, "0.1.0", nil)
	t.Setenv(InstallMethodEnv, "deb")
	m.Offer(r.offer())
	waitFor(t, "the refusal", func() bool { return got.states() == "failed" })
	if msg := got.last().Message; !strings.Contains(msg, "managed by apt") || !strings.Contains(msg, "apt-get install spindle-agent="+r.offer().Version) {
		t.Fatalf("refused with %q", got.last().Message)
	}
	// The Helm chart's DaemonSet: the image is upgraded, never the binary inside it.
	pod, gotPod, _ := managerFor(t, r, "0.1.0", nil)
	t.Setenv(InstallMethodEnv, "kubernetes")
	pod.Offer(r.offer())
	waitFor(t, "the refusal", func() bool { return gotPod.states() == "failed" })
	if !strings.Contains(gotPod.last().Message, "helm upgrade") {
		t.Fatalf("refused with %q", gotPod.last().Message)
	}
	noKey, got2, _ := managerFor(t, nil, "0.1.0", nil)
	noKey.Offer(r.offer())
	waitFor(t, "the refusal", func() bool { return got2.states() == "failed" })
	if !strings.Contains(got2.last().Message, "no signing key") {
		t.Fatalf("refused with %q", got2.last().Message)
	}
	same, got3, _ := managerFor(t, r, "0.1.1", nil)
	same.Offer(r.offer())
	waitFor(t, "installed", func() bool { return got3.states() == "installed" })
}

func TestTheNewAgentIsHealthyOnceTheGatewayAnswers(t *testing.T) {
	m, _, dir := managerFor(t, nil, "0.1.0", nil)
	_ = m
	upgradeDir := filepath.Join(dir, "state", "upgrade")
	statePath := StatePath(upgradeDir)
	if err := WriteState(statePath, State{OfferHash: strings.Repeat("b", 64), From: "0.1.0", To: "0.1.1", Phase: PhaseRestarting}); err != nil {
		t.Fatal(err)
	}
	next, err := NewManager(Settings{Dir: upgradeDir, Version: "0.1.1", Logger: quiet, Executable: filepath.Join(dir, "bin", "spindle-agent")})
	if err != nil {
		t.Fatal(err)
	}
	got := &reports{}
	next.SetReporter(got.add)
	if s, ok := next.Status(); !ok || s.State != StatusInstalling || s.Version != "0.1.1" {
		t.Fatalf("first message would report %+v", s)
	}
	next.GatewayAnswered()
	if st, _, _ := ReadState(statePath); st.Phase != PhaseHealthy {
		t.Fatalf("the watchdog would see %s", st.Phase)
	}
	if got.states() != "installed" || got.last().Version != "0.1.1" {
		t.Fatalf("reported %s", got.states())
	}
	next.GatewayAnswered() // later answers change nothing
	if got.states() != "installed" {
		t.Fatalf("reported %s", got.states())
	}
}

func TestThePreviousAgentReportsTheRollback(t *testing.T) {
	_, _, dir := managerFor(t, nil, "0.1.1", nil)
	upgradeDir := filepath.Join(dir, "state", "upgrade")
	hash := strings.Repeat("c", 64)
	if err := WriteState(StatePath(upgradeDir), State{OfferHash: hash, From: "0.1.1", To: "0.1.2", Phase: PhaseRolledBack,
		Message: "0.1.2 stopped before it reported healthy (exit status 1)"}); err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Settings{Dir: upgradeDir, Version: "0.1.1", Logger: quiet, Executable: filepath.Join(dir, "bin", "spindle-agent")})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := m.Status()
	if !ok || s.State != StatusFailed || s.Offered != "0.1.2" || s.Version != "0.1.1" ||
		s.Message != "rolled back to 0.1.1: 0.1.2 stopped before it reported healthy (exit status 1)" {
		t.Fatalf("reports %+v", s)
	}
	got := &reports{}
	m.SetReporter(got.add)
	m.Offer(Offer{Hash: hash, Version: "0.1.2"}) // offered again by a gateway that missed it
	waitFor(t, "the outcome said again", func() bool { return got.states() == "failed" })
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
