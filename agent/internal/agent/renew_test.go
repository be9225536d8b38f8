package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/credential"
	"github.com/spindle-io/spindle/agent/internal/forward"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

// renewGateway is a real HTTP server playing the gateway's side of renewal: the first POST
// /v1/renew fails (503), the second waits for the test to allow it and then issues spa_new, after
// which spa_old is refused everywhere, as the real gateway does. /v1/metrics reports the bearer
// credential of every request on a channel.
type renewGateway struct {
	t          *testing.T
	allowRenew chan struct{} // closed by the test to let the second renewal succeed
	metrics    chan string   // Authorization of each /v1/metrics request
	expiresAt  time.Time

	mu      sync.Mutex
	valid   string
	renewed int
}

func (g *renewGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	g.mu.Lock()
	ok := auth == "Bearer "+g.valid
	g.mu.Unlock()
	switch r.URL.Path {
	case "/v1/renew":
		if !ok {
			g.t.Errorf("renewal with %q", auth)
			http.Error(w, `{"error":"unknown credential","reason":"unauthenticated"}`, http.StatusUnauthorized)
			return
		}
		g.mu.Lock()
		g.renewed++
		attempt := g.renewed
		g.mu.Unlock()
		if attempt == 1 {
			http.Error(w, `{"error":"database unavailable","reason":"database_unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		<-g.allowRenew
		g.mu.Lock()
		g.valid = "spa_new"
		g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"credential": "spa_new", "expiresAt": g.expiresAt})
	case "/v1/metrics":
		_, _ = io.Copy(io.Discard, r.Body)
		g.metrics <- auth
		if !ok {
			http.Error(w, `{"error":"credential refused","reason":"unauthenticated"}`, http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	default:
		g.t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
	}
}

// TestRenewalReachesForwarder: a failed renewal keeps the old credential (in use and on disk) and
// is retried without outside help; after the retry succeeds, agent.yaml holds the new credential
// with its expiry and the forwarder's next request carries it, without a restart.
func TestRenewalReachesForwarder(t *testing.T) {
	dir := t.TempDir()
	gw := &renewGateway{t: t, allowRenew: make(chan struct{}), metrics: make(chan string, 16), valid: "spa_old",
		expiresAt: time.Now().Add(90 * 24 * time.Hour).UTC().Truncate(time.Second)}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(gw.allowRenew) }) }
	defer release() // a failing test must not leave the handler blocked

	configPath := filepath.Join(dir, "agent.yaml")
	cfg := config.Default()
	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID, cfg.StateDir = srv.URL, "spa_old",
		"0195f3c2-7a8b-7c3d-9e4f-0123456789ab", "0195f3c2-7a8b-7c3d-9e4f-0123456789ac", dir
	if err := config.Save(configPath, cfg); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sp, err := spool.Open(filepath.Join(dir, "spool"), 1<<20, log)
	if err != nil {
		t.Fatal(err)
	}
	// The config has no expiry (as after enrolment), so renewal is due at once.
	holder := credential.NewHolder(cfg.Credential, cfg.CredentialIssuedAt, cfg.CredentialExpiresAt)
	fwd := forward.New(forward.Settings{Gateway: srv.URL, CredentialFunc: holder.Secret, Spool: sp, Logger: log,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, UnauthenticatedRetry: 50 * time.Millisecond,
		IdleCheck: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); release(); wg.Wait() }()
	wg.Add(1)
	go func() { defer wg.Done(); fwd.Run(ctx) }()

	send := func(seq uint64) string {
		t.Helper()
		if err := sp.Append(spool.Batch{Seq: seq, Body: []byte(fmt.Sprintf("batch-%d", seq))}); err != nil {
			t.Fatal(err)
		}
		select {
		case auth := <-gw.metrics:
			return auth
		case <-time.After(time.Minute): // a deadlock guard, not a measurement
			t.Fatalf("batch %d was never sent", seq)
			return ""
		}
	}
	if got := send(1); got != "Bearer spa_old" {
		t.Fatalf("before renewal the forwarder sent %q", got)
	}

	attempts := make(chan error, 4)
	r := newRenewer(holder, configPath, log, RenewSettings{Check: time.Hour, RetryMin: 20 * time.Millisecond,
		OnAttempt: func(err error) { attempts <- err }})
	wg.Add(1)
	go func() { defer wg.Done(); r.Run(ctx) }()

	if err := <-attempts; err == nil {
		t.Fatal("the first renewal succeeded; the gateway answered 503")
	}
	if holder.Secret() != "spa_old" {
		t.Fatalf("after a failed renewal the holder has %q", holder.Secret())
	}
	if saved, err := config.Load(configPath); err != nil || saved.Credential != "spa_old" {
		t.Fatalf("after a failed renewal agent.yaml has %q (%v)", saved.Credential, err)
	}
	if got := send(2); got != "Bearer spa_old" {
		t.Fatalf("after a failed renewal the forwarder sent %q", got)
	}

	release() // the renewer retries on its own; this one succeeds
	if err := <-attempts; err != nil {
		t.Fatalf("the retried renewal failed: %v", err)
	}
	saved, err := config.Load(configPath)
	if err != nil || saved.Credential != "spa_new" || !saved.CredentialExpiresAt.Equal(gw.expiresAt) || saved.CredentialIssuedAt.IsZero() {
		t.Fatalf("after renewal agent.yaml has %q, expiry %v, issued %v (%v)", saved.Credential, saved.CredentialExpiresAt,
			saved.CredentialIssuedAt, err)
	}
	if got := send(3); got != "Bearer spa_new" {
		t.Fatalf("after renewal the forwarder sent %q", got)
	}
	// The new credential has its whole lifetime ahead: no further renewal is due.
	if r.due(time.Now()) {
		t.Fatal("renewal still due right after renewing")
	}
}

func TestRenewRetryWait(t *testing.T) {
	r := newRenewer(credential.NewHolder("spa_x", time.Time{}, time.Time{}), "unused", slog.Default(),
		RenewSettings{Check: time.Hour, RetryMin: 5 * time.Minute})
	want := []time.Duration{5 * time.Minute, 10 * time.Minute, 20 * time.Minute, 40 * time.Minute, time.Hour, time.Hour}
	for i, w := range want {
		if got := r.retryWait(i + 1); got != w {
			t.Errorf("retryWait(%d) = %v, want %v", i+1, got, w)
		}
	}
	for i := 0; i < 100; i++ {
		if j := jitter(time.Hour); j < 48*time.Minute || j >= 72*time.Minute {
			t.Fatalf("jitter(1h) = %v, outside [48m, 72m)", j)
		}
	}
}
