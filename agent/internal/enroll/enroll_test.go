package enroll

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
	"github.com/spindle-io/spindle/agent/internal/spool"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

func fixtureSources(t *testing.T) *hostinfo.Sources {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "machine-id"), []byte("0123456789abcdef0123456789abcdef\n"), 0o444)
	os.WriteFile(filepath.Join(dir, "os-release"), []byte("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"), 0o444)
	return &hostinfo.Sources{MachineIDFiles: []string{filepath.Join(dir, "machine-id")},
		OSReleaseFiles: []string{filepath.Join(dir, "os-release")}, StateDir: dir}
}

func TestEnrolWritesConfigAndRaisesSequence(t *testing.T) {
	var got Request
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/enroll" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s %v", r.Method, r.URL.Path, r.Header)
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Error(err)
		}
		w.Write([]byte(`{"agentId":"a-1","serverId":"s-1","orgId":"o-1","credential":"spa_secret","batchHwm":500,"expiresAt":"2027-02-21T08:00:00Z"}`))
	}))

	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "agent.yaml")
	state := filepath.Join(dir, "state")
	existing := config.Default()
	existing.StateDir, existing.Interval = state, 30*time.Second // settings enrolment must keep
	if err := config.Save(cfgPath, existing); err != nil {
		t.Fatal(err)
	}

	res, err := Enroll(context.Background(), Options{ConfigPath: cfgPath, Token: "spe_token", Gateway: gw.URL,
		AgentVersion: "0.1.0", Sources: fixtureSources(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := Request{Token: "spe_token", MachineID: "0123456789abcdef0123456789abcdef", OS: runtime.GOOS,
		OSVersion: "Debian GNU/Linux 12 (bookworm)", Arch: runtime.GOARCH, AgentVersion: "0.1.0",
		Hostname: res.Host.Hostname, Kernel: res.Host.Kernel}
	if got != want || got.Hostname == "" || got.Kernel == "" {
		t.Fatalf("request\n got %+v\nwant %+v", got, want)
	}

	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Credential != "spa_secret" || cfg.AgentID != "a-1" || cfg.ServerID != "s-1" || cfg.Gateway != gw.URL ||
		cfg.Interval != 30*time.Second || cfg.StateDir != state {
		t.Fatalf("config after enrolment: %+v", cfg)
	}
	// The expiry from the answer is kept, so the running agent has no reason to renew at once.
	if !cfg.CredentialExpiresAt.Equal(time.Date(2027, 2, 21, 8, 0, 0, 0, time.UTC)) || cfg.CredentialIssuedAt.IsZero() {
		t.Fatalf("credential dates after enrolment: issued %v, expires %v", cfg.CredentialIssuedAt, cfg.CredentialExpiresAt)
	}
	if err := cfg.RequireEnrolled(cfgPath); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(cfgPath); info.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", info.Mode().Perm())
	}
	seq, _ := spool.OpenSequence(cfg.SequencePath(), 0)
	if next, _ := seq.Next(); next != 501 {
		t.Fatalf("first batch after enrolment is %d, want 501 (above batchHwm 500)", next)
	}
}

func TestRefusedTokenSaysWhatToDo(t *testing.T) {
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"the enrolment token has expired","reason":"invalid_token"}`))
	}))
	cfgPath := filepath.Join(t.TempDir(), "agent.yaml")
	_, err := Enroll(context.Background(), Options{ConfigPath: cfgPath, Token: "spe_old", Gateway: gw.URL, Sources: fixtureSources(t)})
	if err == nil || !strings.Contains(err.Error(), "invalid_token") || !strings.Contains(err.Error(), "create a new one") {
		t.Fatalf("%v", err)
	}
	if _, statErr := os.Stat(cfgPath); !os.IsNotExist(statErr) {
		t.Fatal("a failed enrolment must not write a config")
	}
}

func TestBadInputsFailBeforeAnyRequest(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "agent.yaml")
	if _, err := Enroll(context.Background(), Options{ConfigPath: cfgPath, Token: "spa_x", Gateway: "http://127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "spe_") {
		t.Errorf("credential passed as token: %v", err)
	}
	if _, err := Enroll(context.Background(), Options{ConfigPath: cfgPath, Token: "spe_x", Gateway: "gateway:4318"}); err == nil {
		t.Error("gateway without scheme accepted")
	}
}

// The installer enrols into a prefixed root (tests, images): the state directory it names must
// land in the config, or the agent would spool into the host's /var/lib/spindle.
func TestEnrolWritesTheGivenStateDir(t *testing.T) {
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"agentId":"a-1","serverId":"s-1","orgId":"o-1","credential":"spa_secret","batchHwm":7}`))
	}))
	dir := t.TempDir()
	cfgPath, state := filepath.Join(dir, "agent.yaml"), filepath.Join(dir, "root", "var", "lib", "spindle")
	if _, err := Enroll(context.Background(), Options{ConfigPath: cfgPath, StateDir: state, Token: "spe_token",
		Gateway: gw.URL, Sources: fixtureSources(t)}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.StateDir != state {
		t.Fatalf("state_dir %q, want %q", cfg.StateDir, state)
	}
	seq, _ := spool.OpenSequence(filepath.Join(state, filepath.Base(cfg.SequencePath())), 0)
	if next, _ := seq.Next(); next != 8 {
		t.Fatalf("sequence in the given state dir continues at %d, want 8", next)
	}
}

// A fleet installing at once meets a busy gateway (429, or 503 while it restarts): enrolment
// waits as Retry-After says and tries again, within a budget, instead of failing the install.
func TestEnrolmentWaitsOutABusyGateway(t *testing.T) {
	var waits []time.Duration
	sleep = func(_ context.Context, d time.Duration) { waits = append(waits, d) }
	t.Cleanup(func() { sleep = sleepFor })
	calls := 0
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		switch calls {
		case 1:
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":"the gateway is busy","reason":"overloaded"}`))
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":"database unavailable","reason":"database_unavailable"}`))
		default:
			json.NewEncoder(w).Encode(map[string]any{"agentId": "a", "serverId": "s", "orgId": "o", "credential": "spa_new", "batchHwm": 0})
		}
	}))
	cfgPath := filepath.Join(t.TempDir(), "agent.yaml")
	if _, err := Enroll(context.Background(), Options{ConfigPath: cfgPath, Token: "spe_x", Gateway: gw.URL, Sources: fixtureSources(t)}); err != nil {
		t.Fatal(err)
	}
	if calls != 3 || len(waits) != 2 || waits[0] < 3*time.Second || waits[0] >= 4*time.Second || waits[1] < 5*time.Second {
		t.Fatalf("%d requests, waits %v; want 3 requests, waiting Retry-After (3 s) then the default 5 s, each plus under a second", calls, waits)
	}
}

func TestEnrolmentGivesUpOnAGatewayBusyForTooLong(t *testing.T) {
	var waited time.Duration
	sleep = func(_ context.Context, d time.Duration) { waited += d }
	t.Cleanup(func() { sleep = sleepFor })
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	_, err := Enroll(context.Background(), Options{ConfigPath: filepath.Join(t.TempDir(), "agent.yaml"), Token: "spe_x", Gateway: gw.URL, Sources: fixtureSources(t)})
	if err == nil || !strings.Contains(err.Error(), "stayed busy") {
		t.Fatalf("%v", err)
	}
	if waited > busyBudget {
		t.Fatalf("waited %v, beyond the %v budget", waited, busyBudget)
	}
}
