// Package testutil holds helpers for tests that need real loopback HTTP servers or read the
// page cache.
package testutil

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Agent tests own the loopback ports 56100-56199 (shared machine: other suites use other
// ranges), so servers are bound inside it instead of on a random port.
const firstPort, lastPort = 56100, 56199

// Listen binds the first free loopback port in the agent's range.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	for port := firstPort; port <= lastPort; port++ {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			return l
		}
	}
	t.Fatalf("no free loopback port in %d-%d", firstPort, lastPort)
	return nil
}

// Server starts an httptest server on a port from the agent's range.
func Server(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	return ServeOn(t, Listen(t), h)
}

// ServeOn starts an httptest server on an existing listener (to reuse a known address).
func ServeOn(t testing.TB, l net.Listener, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}
