package httpapi

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
)

// repoGateway is a gateway on loopback serving release 0.9.7 of the agent's packages from its
// package repositories, with its public URL its own address (so what it serves names it, as a
// deployed gateway's does), behind a "network" that can alter responses in transit.
type repoGateway struct {
	url  string // the gateway's base URL, without a trailing slash
	work string // a scratch directory for the client's files
	// tampered is the path suffix whose responses the network alters ("" for none).
	tampered atomic.Value
}

// newRepoGateway builds the packages of release 0.9.7 with pack (into the release's directory)
// and serves them. alter is what the network does to the body of a tampered response; a
// compressed one also gets one byte more, so it no longer decompresses to what was signed.
func newRepoGateway(t *testing.T, pack func(t *testing.T, dir, version string), alter func(body []byte) []byte) *repoGateway {
	t.Helper()
	g := &repoGateway{work: t.TempDir()}
	g.tampered.Store("")
	dist := filepath.Join(g.work, "dist")
	pack(t, filepath.Join(dist, "0.9.7"), "0.9.7")
	catalogue := releases.New(dist, testSigningKey)
	if err := catalogue.Refresh(); err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.url = "http://" + listener.Addr().String()
	_, handler, err := newServer(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: g.url,
		SigningKey: testSigningKey, Releases: catalogue, AgentDistDir: dist, MaxBodyBytes: 1 << 20, MaxConcurrentWrites: 1, MaxQueuedWrites: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		suffix := g.tampered.Load().(string)
		if suffix == "" || !strings.HasSuffix(r.URL.Path, suffix) {
			handler.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		body := alter(rec.Body.Bytes())
		if strings.HasSuffix(r.URL.Path, ".gz") {
			body = append(body, 0)
		}
		_, _ = w.Write(body)
	}))
	_ = srv.Listener.Close()
	srv.Listener = listener
	srv.Start()
	t.Cleanup(srv.Close)
	return g
}

// tamper makes the network alter every response whose path ends with suffix from now on.
func (g *repoGateway) tamper(suffix string) { g.tampered.Store(suffix) }

// buildAgent builds the real agent at version into path.
func buildAgent(t *testing.T, version, path string) {
	t.Helper()
	agent, _ := filepath.Abs("../../../../agent")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", path, "./cmd/spindle-agent")
	cmd.Dir, cmd.Env = agent, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the agent: %v\n%s", err, out)
	}
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
