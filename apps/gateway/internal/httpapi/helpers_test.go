package httpapi

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

var (
	// An hour ago, to the minute: inside the gateway's accepted timestamp window whenever the
	// tests run.
	sampleStart = time.Now().UTC().Truncate(time.Minute).Add(-time.Hour)
	sampleEnd   = sampleStart.Add(10 * time.Second)
)

// gateway is a running gateway on a fresh database with two organisations.
type gateway struct {
	url    string
	server *server
	db     *pgxpool.Pool // for assertions and seeding
	dbURL  string
}

type option func(*Options)

// testSigningKey stands for the gateway's signing key.
var testSigningKey = func() signing.Key {
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return signing.New(private)
}()

func newGateway(t *testing.T, options ...option) *gateway {
	t.Helper()
	dbURL := testdb.New(t)
	s, err := store.Open(context.Background(), dbURL, 6)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	db, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	testdb.Org(t, db, "org-a")
	testdb.Org(t, db, "org-b")
	url, srv := serve(t, s, options...)
	return &gateway{url: url, server: srv, db: db, dbURL: dbURL}
}

// serve starts the handler on a loopback port and returns its base URL.
func serve(t *testing.T, s *store.Store, options ...option) (string, *server) {
	t.Helper()
	opts := Options{
		Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: "http://gateway.test:4318", SigningKey: testSigningKey,
		MaxBodyBytes: 1 << 20, MaxConcurrentWrites: 4, MaxQueuedWrites: 4,
	}
	for _, o := range options {
		o(&opts)
	}
	server, handler, err := newServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL, server
}

type enrolledAgent struct {
	AgentID    string    `json:"agentId"`
	ServerID   string    `json:"serverId"`
	OrgID      string    `json:"orgId"`
	Credential string    `json:"credential"`
	BatchHWM   int64     `json:"batchHwm"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

func enrollBody(token, machineID string) map[string]string {
	return map[string]string{"token": token, "machineId": machineID, "hostname": "db01", "os": "linux",
		"osVersion": "Debian GNU/Linux 12 (bookworm)", "kernel": "6.1.0-18-amd64", "arch": "amd64", "agentVersion": "0.1.0"}
}

// enroll creates a token for org and enrols machineID through POST /v1/enroll.
func (g *gateway) enroll(t *testing.T, orgID, machineID string) enrolledAgent {
	t.Helper()
	token, _ := testdb.EnrollmentToken(t, g.db, orgID, testdb.TokenValid)
	resp := g.postJSON(t, "/v1/enroll", enrollBody(token, machineID))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("enrol: %d %s", resp.StatusCode, readAll(t, resp))
	}
	var agent enrolledAgent
	if err := json.Unmarshal(readAll(t, resp), &agent); err != nil {
		t.Fatal(err)
	}
	return agent
}

// reenroll enrols an already enrolled machine, proving it by its current credential.
func (g *gateway) reenroll(t *testing.T, orgID, machineID, current string) enrolledAgent {
	t.Helper()
	token, _ := testdb.EnrollmentToken(t, g.db, orgID, testdb.TokenValid)
	body, err := json.Marshal(enrollBody(token, machineID))
	if err != nil {
		t.Fatal(err)
	}
	resp := g.post(t, "/v1/enroll", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + current}, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("re-enrol: %d %s", resp.StatusCode, readAll(t, resp))
	}
	var agent enrolledAgent
	if err := json.Unmarshal(readAll(t, resp), &agent); err != nil {
		t.Fatal(err)
	}
	return agent
}

func (g *gateway) postJSON(t *testing.T, path string, body any) *http.Response {
	t.Helper()
	encoded, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return g.post(t, path, map[string]string{"Content-Type": "application/json"}, encoded)
}

func (g *gateway) post(t *testing.T, path string, headers map[string]string, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// export posts an OTLP protobuf body with the agent's credential.
func (g *gateway) export(t *testing.T, credential string, body []byte) *http.Response {
	t.Helper()
	return g.post(t, "/v1/metrics", map[string]string{"Content-Type": "application/x-protobuf", "Authorization": "Bearer " + credential}, body)
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// expectError checks an error response's status, JSON shape and reason, and returns its message.
func expectError(t *testing.T, resp *http.Response, status int, reason string) string {
	t.Helper()
	body := readAll(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	var e struct{ Error, Reason string }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	if e.Reason != reason || e.Error == "" {
		t.Fatalf("error body %s, want reason %q and a message", body, reason)
	}
	return e.Error
}

func (g *gateway) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := g.db.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func sample(seq int64) otlpfixture.Sample {
	return otlpfixture.Sample{
		Seq: seq, Start: sampleStart.Add(time.Duration(seq-1) * 10 * time.Second), End: sampleEnd.Add(time.Duration(seq-1) * 10 * time.Second),
		Disks: []otlpfixture.Disk{
			{Device: "sda", ReadOps: 120, WriteOps: 45, ReadBytes: 491520, WriteBytes: 184320, ReadMerged: 3, WriteMerged: 7,
				ReadSeconds: 0.24, WriteSeconds: 0.09, IOSeconds: 0.3125, WeightedIOSeconds: 0.331, InProgress: 2},
			{Device: "nvme0n1", ReadOps: 5000, WriteOps: 1500, ReadBytes: 20480000, WriteBytes: 6144000,
				ReadSeconds: 0.5, WriteSeconds: 0.25, IOSeconds: 0.75, WeightedIOSeconds: 0.8},
		},
		Memory: &otlpfixture.Memory{Limit: 8 << 30, Available: 5 << 30, Free: 1 << 30, Cached: 3 << 30, Buffers: 256 << 20,
			Dirty: 12 << 20, SwapUsed: 100 << 20, SwapFree: 924 << 20},
	}
}

func decodeJSON(t *testing.T, resp *http.Response, into any) {
	t.Helper()
	if err := json.Unmarshal(readAll(t, resp), into); err != nil {
		t.Fatal(err)
	}
}
