package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/config"
	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

// The gateway serves until its context ends (SIGTERM in production), then shuts down cleanly.
func TestRunServesUntilCancelled(t *testing.T) {
	addr := freeAddr(t)
	stateDir := t.TempDir()
	cfg, err := config.Load(func(key string) string {
		return map[string]string{"DATABASE_URL": testdb.New(t), "SPINDLE_GATEWAY_ADDR": addr, "SPINDLE_GATEWAY_STATE_DIR": stateDir}[key]
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()

	// Until it answers healthy; a run that ends first (a port taken, a database refused) says why.
	deadline := time.Now().Add(120 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case runErr := <-done:
			t.Fatalf("run returned before the gateway was healthy: %v", runErr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not healthy within 120s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after cancellation", err)
		}
	case <-time.After(shutdownGrace + 60*time.Second): // a hang guard: nothing is in flight, so the grace is not used
		t.Fatal("run did not return after cancellation")
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Fatal("the gateway still answers after shutdown")
	}
	// The first start generated the signing key into the state directory.
	if _, err := signing.Load(filepath.Join(stateDir, "signing-key.pem")); err != nil {
		t.Fatalf("no signing key in the state directory after the first start: %v", err)
	}
}

// freeAddr is a loopback address no one listens on now: a fixed port inside the kernel's
// ephemeral range can be taken by another test's outgoing connection first.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
