package enroll

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

func enrolledConfig(t *testing.T, gateway string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.yaml")
	cfg := config.Default()
	cfg.StateDir = filepath.Join(filepath.Dir(path), "state")
	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID = gateway, "spa_old", "a-1", "s-1"
	if err := config.Save(path, cfg); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRenewSendsTheCurrentCredentialAndSavesTheNewOne(t *testing.T) {
	var auth string
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/renew" || r.Method != http.MethodPost {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		auth = r.Header.Get("Authorization")
		w.Write([]byte(`{"credential":"spa_new","expiresAt":"2027-02-21T08:00:00Z"}`))
	}))
	path := enrolledConfig(t, gw.URL)
	renewed, err := Renew(context.Background(), http.DefaultClient, path)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer spa_old" || renewed.Credential != "spa_new" {
		t.Fatalf("auth %q, renewed %+v", auth, renewed)
	}
	cfg, err := config.Load(path)
	if err != nil || cfg.Credential != "spa_new" || cfg.AgentID != "a-1" {
		t.Fatalf("config after renewal: %+v %v", cfg, err)
	}
	// The expiry and the issue time are saved: the running agent renews from them after a restart.
	if want := time.Date(2027, 2, 21, 8, 0, 0, 0, time.UTC); !cfg.CredentialExpiresAt.Equal(want) ||
		cfg.CredentialIssuedAt.IsZero() || !cfg.CredentialIssuedAt.Equal(renewed.IssuedAt) {
		t.Fatalf("saved expiry %v, issued %v (renewed %+v)", cfg.CredentialExpiresAt, cfg.CredentialIssuedAt, renewed)
	}
}

func TestRenewRefusedKeepsTheConfigAndSaysWhatToDo(t *testing.T) {
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"the agent credential expired","reason":"credential_expired"}`))
	}))
	path := enrolledConfig(t, gw.URL)
	_, err := Renew(context.Background(), http.DefaultClient, path)
	if err == nil || !strings.Contains(err.Error(), "credential_expired") || !strings.Contains(err.Error(), "allow re-enrolment") {
		t.Fatalf("err = %v", err)
	}
	if cfg, _ := config.Load(path); cfg.Credential != "spa_old" {
		t.Fatalf("a refused renewal changed the credential to %q", cfg.Credential)
	}
}

func TestReenrolmentSendsTheMachinesCurrentCredential(t *testing.T) {
	var auth string
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		w.Write([]byte(`{"agentId":"a-1","serverId":"s-1","orgId":"o-1","credential":"spa_next","batchHwm":0}`))
	}))
	path := enrolledConfig(t, gw.URL)
	if _, err := Enroll(context.Background(), Options{ConfigPath: path, Token: "spe_token", Gateway: gw.URL, Sources: fixtureSources(t)}); err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer spa_old" {
		t.Fatalf("Authorization %q, want the machine's current credential", auth)
	}
}
