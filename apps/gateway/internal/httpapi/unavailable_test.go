package httpapi

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// dbProxy stands between the gateway and PostgreSQL so a test can take the database away
// and bring it back on the same address.
type dbProxy struct {
	t        *testing.T
	target   string
	addr     string
	mu       sync.Mutex
	listener net.Listener
	conns    []net.Conn
}

func newDBProxy(t *testing.T, target string) *dbProxy {
	p := &dbProxy{t: t, target: target}
	p.start("127.0.0.1:0")
	t.Cleanup(p.stop)
	return p
}

func (p *dbProxy) start(addr string) {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.listener, p.addr = listener, listener.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			client, err := listener.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", p.target)
			if err != nil {
				client.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, client, server)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(server, client); server.Close() }()
			go func() { _, _ = io.Copy(client, server); client.Close() }()
		}
	}()
}

// stop closes the listener and cuts every open connection, as a database crash would.
func (p *dbProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener != nil {
		p.listener.Close()
		p.listener = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func TestDatabaseDownAnswers503AndRecovers(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")

	dbURL, err := url.Parse(g.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newDBProxy(t, dbURL.Host)
	dbURL.Host = proxy.addr
	query := dbURL.Query()
	query.Set("connect_timeout", "2")
	dbURL.RawQuery = query.Encode()
	proxied, err := store.Open(context.Background(), dbURL.String(), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxied.Close)
	proxiedURL, _ := serve(t, proxied)
	behindProxy := &gateway{url: proxiedURL, db: g.db, dbURL: dbURL.String()}

	body := otlpfixture.Proto(otlpfixture.Build(sample(1)))
	if resp := behindProxy.export(t, agent.Credential, body); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d before the outage", resp.StatusCode)
	}

	proxy.stop()
	resp := behindProxy.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(2))))
	expectError(t, resp, http.StatusServiceUnavailable, reasonDatabaseUnavailable)
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	token := "spe_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	expectError(t, behindProxy.postJSON(t, "/v1/enroll", enrollBody(token, "machine-z")), http.StatusServiceUnavailable, reasonDatabaseUnavailable)
	health := behindProxy.get(t, "/healthz")
	var status struct{ Status, Database, Reason string }
	decodeJSON(t, health, &status)
	if health.StatusCode != http.StatusServiceUnavailable || status.Database != "unavailable" || status.Reason != reasonDatabaseUnavailable {
		t.Fatalf("healthz during the outage: %d %+v", health.StatusCode, status)
	}
	if live := behindProxy.get(t, "/livez"); live.StatusCode != http.StatusOK {
		t.Fatalf("livez during the outage: %d; a liveness probe would restart every gateway", live.StatusCode)
	}

	proxy.start(proxy.addr)
	// The agent retries both batches; the first was written before the outage.
	if resp := behindProxy.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1), sample(2)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d after the outage: %s", resp.StatusCode, readAll(t, resp))
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io`); n != 4 {
		t.Fatalf("%d rows, want 4: every sample exactly once", n)
	}
	if resp := behindProxy.get(t, "/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz after the outage: %d", resp.StatusCode)
	}
}

func TestUnreachableDatabaseAnswers503(t *testing.T) {
	dead, err := store.Open(context.Background(), "postgres://postgres@127.0.0.1:1/spindle?connect_timeout=2", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dead.Close)
	url, _ := serve(t, dead)
	g := &gateway{url: url}
	expectError(t, g.export(t, "spa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", otlpfixture.Proto(otlpfixture.Build(sample(1)))),
		http.StatusServiceUnavailable, reasonDatabaseUnavailable)
	if resp := g.get(t, "/healthz"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
}

func TestHealthReportsADatabaseThatAnswers(t *testing.T) {
	g := newGateway(t)
	resp := g.get(t, "/healthz")
	var status struct{ Status, Database string }
	decodeJSON(t, resp, &status)
	if resp.StatusCode != http.StatusOK || status.Status != "ok" || status.Database != "ok" {
		t.Fatalf("healthz: %d %+v", resp.StatusCode, status)
	}
}

func (g *gateway) get(t *testing.T, path string) *http.Response {
	t.Helper()
	resp, err := http.Get(g.url + path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
