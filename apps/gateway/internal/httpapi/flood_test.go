package httpapi

// Issue 25, M1 and M1b: every endpoint has a per-address limit and its database work an
// admission pool of its own, so a flood against any one of them, from one address or from many,
// neither takes the ingest pool's connections nor slows or refuses the agents' exports and the
// load balancer's health probes; and agents behind one address are limited per credential, not
// as one client. The gateway here is shaped as production's: a pool of group writers +
// enrolment slots + GateConnections, default limits, X-Forwarded-For trusted from loopback so
// each request can say which client it stands for.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/groupcommit"
	"github.com/spindle-io/spindle/apps/gateway/internal/opamp"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

const (
	floodWriters = 2
	floodEnrolls = 2
)

type floodGateway struct {
	*gateway
	store *store.Store
}

// newFloodGateway runs the gateway as cmd/spindle-gateway wires it, OpAMP included.
func newFloodGateway(t *testing.T, options ...option) *floodGateway {
	t.Helper()
	ctx := context.Background()
	dbURL := testdb.New(t)
	st, err := store.Open(ctx, dbURL, floodWriters+floodEnrolls+GateConnections)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	opampStore, err := store.Open(ctx, dbURL, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(opampStore.Close)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	opampCredentials := store.NewCredentials(opampStore.AuthenticateAgent, store.DefaultCredentialTTL, store.DefaultCredentialCacheLimit)
	opampServer, err := opamp.New(opamp.Settings{Store: opampStore, Logger: logger, Credentials: opampCredentials})
	if err != nil {
		t.Fatal(err)
	}
	writes := groupcommit.New(groupcommit.Settings{Store: st, Window: 2 * time.Millisecond, Writers: floodWriters})
	t.Cleanup(writes.Close)
	dist := t.TempDir()
	for _, name := range []string{"spindle-agent-linux-amd64", "spindle-agent-linux-arm64", "spindle-agent-windows-amd64.exe"} {
		if err := os.WriteFile(filepath.Join(dist, name), bytes.Repeat([]byte(name), 1<<16), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{
		Store: st, Logger: logger, PublicURL: "http://gateway.test:4318", SigningKey: testSigningKey, AgentDistDir: dist,
		MaxBodyBytes: 8 << 20, MaxConcurrentWrites: 64, MaxQueuedWrites: 32, MaxConcurrentEnrolls: floodEnrolls, Writes: writes,
		RatePerAddress: RateLimit{PerSecond: 50, Burst: 200}, RatePerCredential: RateLimit{PerSecond: 20, Burst: 100},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")},
		OpAMP:          opampServer.Handler(), OpAMPCredentials: opampCredentials,
	}
	for _, o := range options {
		o(&opts)
	}
	srv, handler, err := newServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(handler)
	ts.Config.ConnContext = opampServer.ConnContext()
	ts.Start()
	t.Cleanup(ts.Close)
	db, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	testdb.Org(t, db, "org-a")
	return &floodGateway{gateway: &gateway{url: ts.URL, server: srv, db: db, dbURL: dbURL}, store: st}
}

// floodClient sends many requests at once without running out of ports.
var floodClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}

func randomSecret(prefix string) string {
	random := make([]byte, 32)
	_, _ = rand.Read(random)
	return prefix + base64.RawURLEncoding.EncodeToString(random)
}

// endpoint makes one request a flood would send: a guessed credential or token where the
// endpoint takes one.
type endpoint struct {
	name string
	// connections is the most ingest-pool connections a flood of it may hold: its pool's slots.
	connections int32
	request     func(base string) *http.Request
}

func floodEndpoints() []endpoint {
	agentPost := func(path, contentType string, body []byte) func(string) *http.Request {
		return func(base string) *http.Request {
			r, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+randomSecret("spa_"))
			r.Header.Set("Content-Type", contentType)
			return r
		}
	}
	get := func(path string) func(string) *http.Request {
		return func(base string) *http.Request { r, _ := http.NewRequest(http.MethodGet, base+path, nil); return r }
	}
	export := otlpfixture.Proto(otlpfixture.Build(sample(1)))
	return []endpoint{
		{"POST /v1/metrics", 1, agentPost("/v1/metrics", "application/x-protobuf", export)},
		{"POST /v1/renew", 1, agentPost("/v1/renew", "application/json", nil)},
		{"GET /v1/bench/next", 1, func(base string) *http.Request {
			r := get("/v1/bench/next?wait=0")(base)
			r.Header.Set("Authorization", "Bearer "+randomSecret("spa_"))
			return r
		}},
		{"POST /v1/bench/profiles", 1, agentPost("/v1/bench/profiles", "application/json", []byte(`{"profiles":[{"name":"x"}],"paths":[]}`))},
		{"POST /v1/bench/runs/{id}/progress", 1, agentPost("/v1/bench/runs/00000000-0000-4000-8000-000000000000/progress", "application/json", []byte(`{"fraction":0.5}`))},
		{"POST /v1/bench/runs/{id}/finish", 1, agentPost("/v1/bench/runs/00000000-0000-4000-8000-000000000000/finish", "application/json", []byte(`{"status":"cancelled"}`))},
		{"POST /v1/enroll", floodEnrolls, func(base string) *http.Request {
			body := fmt.Sprintf(`{"token":%q,"machineId":"m","hostname":"h","os":"linux"}`, randomSecret("spe_"))
			r, _ := http.NewRequest(http.MethodPost, base+"/v1/enroll", bytes.NewReader([]byte(body)))
			r.Header.Set("Content-Type", "application/json")
			return r
		}},
		{"POST /v1/opamp", 0, agentPost("/v1/opamp", "application/x-protobuf", nil)}, // OpAMP's own pool
		{"GET /healthz", 1, get("/healthz")},
		{"GET /livez", 0, get("/livez")},
		{"GET /metrics", 0, get("/metrics")},
		{"GET /install.sh", 0, get("/install.sh")},
		{"GET /download/SHA256SUMS", 0, get("/download/SHA256SUMS")},
		{"GET /download/SHA256SUMS.sig", 0, get("/download/SHA256SUMS.sig")},
		{"GET /download/spindle-agent-linux-amd64", 0, get("/download/spindle-agent-linux-amd64")},
		{"GET /nothing-here", 0, get("/nothing-here")},
	}
}

var addressCounter atomic.Uint32

// uniqueAddress is a client address no other request in the test uses.
func uniqueAddress() string {
	n := addressCounter.Add(1)
	return fmt.Sprintf("10.%d.%d.%d", (n>>16)&0xff, (n>>8)&0xff, n&0xff)
}

// flood sends count requests, concurrency at a time, each from from() and returns the statuses.
func flood(t *testing.T, base string, e endpoint, count, concurrency int, from func() string) map[int]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	next := make(chan struct{})
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				r := e.request(base)
				r.Header.Set("X-Forwarded-For", from())
				resp, err := floodClient.Do(r)
				if err != nil {
					t.Errorf("%s: %v", e.name, err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	for range count {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	return statuses
}

func TestEveryEndpointLimitsWhatOneAddressSends(t *testing.T) {
	g := newFloodGateway(t, func(o *Options) { o.RatePerAddress = RateLimit{PerSecond: 1, Burst: 20} })
	for _, e := range floodEndpoints() {
		address := uniqueAddress()
		statuses := flood(t, g.url, e, 60, 4, func() string { return address })
		// 20 answered (refused or served), then the address's budget is spent: about 40 × 429.
		if statuses[http.StatusTooManyRequests] < 30 {
			t.Errorf("%s: one address sent 60 failing or unauthenticated requests, %d were refused with 429 (%v)",
				e.name, statuses[http.StatusTooManyRequests], statuses)
		}
	}
}

func TestAFloodFromManyAddressesHoldsOnlyItsOwnConnections(t *testing.T) {
	g := newFloodGateway(t)
	for _, e := range floodEndpoints() {
		g.store.ResetConnectionsPeak()
		statuses := flood(t, g.url, e, 300, 24, uniqueAddress)
		if peak := g.store.ConnectionsPeak(); peak > e.connections {
			t.Errorf("%s: a flood from 300 addresses held %d ingest-pool connections at once; its pool has %d (%v)",
				e.name, peak, e.connections, statuses)
		}
		if statuses[http.StatusInternalServerError]+statuses[http.StatusServiceUnavailable] > 0 {
			t.Errorf("%s: the flood got server errors: %v", e.name, statuses)
		}
	}
}

func TestIngestAndHealthOutlastAFloodOfEveryEndpoint(t *testing.T) {
	g := newFloodGateway(t)
	agents := make([]enrolledAgent, 20)
	for i := range agents {
		agents[i] = g.enroll(t, "org-a", fmt.Sprintf("flood-agent-%02d", i))
	}
	var baseline []time.Duration
	sequences := make([]atomic.Int64, len(agents)) // each agent numbers its own batches
	var exports atomic.Int64
	ingestRound := func() ([]time.Duration, []string) {
		var mu sync.Mutex
		var latencies []time.Duration
		var problems []string
		var wg sync.WaitGroup
		for i, agent := range agents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					exports.Add(1)
					r, _ := http.NewRequest(http.MethodPost, g.url+"/v1/metrics", bytes.NewReader(otlpfixture.Proto(otlpfixture.Build(sample(sequences[i].Add(1))))))
					r.Header.Set("Authorization", "Bearer "+agent.Credential)
					r.Header.Set("Content-Type", "application/x-protobuf")
					r.Header.Set("X-Forwarded-For", "198.51.100.7") // the whole fleet behind one NAT
					started := time.Now()
					resp, err := floodClient.Do(r)
					mu.Lock()
					if err != nil {
						problems = append(problems, err.Error())
					} else {
						latencies = append(latencies, time.Since(started))
						if resp.StatusCode != http.StatusOK {
							problems = append(problems, fmt.Sprintf("export: %d", resp.StatusCode))
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return latencies, problems
	}
	if latencies, problems := ingestRound(); len(problems) > 0 {
		t.Fatalf("before any flood: %v", problems)
	} else {
		baseline = latencies
	}
	for _, e := range floodEndpoints() {
		done := make(chan struct{})
		var floods sync.WaitGroup
		floods.Add(2)
		go func() { defer floods.Done(); flood(t, g.url, e, 400, 12, uniqueAddress) }()
		address := uniqueAddress()
		go func() { defer floods.Done(); flood(t, g.url, e, 400, 12, func() string { return address }) }()
		health := make(chan []int, 1)
		go func() {
			var codes []int
			for {
				select {
				case <-done:
					health <- codes
					return
				default:
				}
				r, _ := http.NewRequest(http.MethodGet, g.url+"/healthz", nil)
				r.Header.Set("X-Forwarded-For", "192.0.2.10") // the load balancer
				if resp, err := floodClient.Do(r); err == nil {
					codes = append(codes, resp.StatusCode)
					resp.Body.Close()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		latencies, problems := ingestRound()
		floods.Wait()
		close(done)
		codes := <-health
		if len(problems) > 0 {
			t.Errorf("%s: the agents' exports during the flood: %v", e.name, problems)
		}
		if slices.ContainsFunc(codes, func(c int) bool { return c != http.StatusOK }) || len(codes) == 0 {
			t.Errorf("%s: /healthz during the flood answered %v", e.name, codes)
		}
		t.Logf("%s: export latency p50 %v p99 %v (before any flood p50 %v p99 %v)", e.name,
			percentile(latencies, 0.5), percentile(latencies, 0.99), percentile(baseline, 0.5), percentile(baseline, 0.99))
	}
	if n := g.count(t, `SELECT count(*) FROM memory`); n != int(exports.Load()) {
		t.Fatalf("%d memory rows for %d exports: each written once", n, exports.Load())
	}
}

func percentile(values []time.Duration, p float64) time.Duration {
	if len(values) == 0 {
		return 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return sorted[int(p*float64(len(sorted)-1))]
}

// Issue 25, M1b: a site whose 1,000 servers leave through one NAT address; each agent is held
// to its own credential's budget, so none is refused for the others' traffic.
func TestThousandAgentsBehindOneAddressAreLimitedPerCredential(t *testing.T) {
	g := newFloodGateway(t)
	credentials := make([]string, 1000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	next := make(chan int)
	for range floodEnrolls { // as many installs at once as the gateway enrols at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				token, _ := testdb.EnrollmentToken(t, g.db, "org-a", testdb.TokenValid)
				body := fmt.Sprintf(`{"token":%q,"machineId":"nat-%04d","hostname":"nat-%04d","os":"linux"}`, token, i, i)
				r, _ := http.NewRequest(http.MethodPost, g.url+"/v1/enroll", bytes.NewReader([]byte(body)))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("X-Forwarded-For", "198.51.100.7")
				resp, err := floodClient.Do(r)
				if err != nil {
					t.Error(err)
					continue
				}
				var enrolled enrolledAgent
				decodeJSON(t, resp, &enrolled)
				mu.Lock()
				if resp.StatusCode != http.StatusOK {
					failures = append(failures, fmt.Sprintf("enrol %d: %d", i, resp.StatusCode))
				}
				credentials[i] = enrolled.Credential
				mu.Unlock()
			}
		}()
	}
	for i := range credentials {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of 1,000 enrolments from one address failed, e.g. %v", len(failures), failures[:min(5, len(failures))])
	}
	// Every agent exports twice, all at once, from the one address: 2,000 requests, far above the
	// address's budget of 200 at once and 50 a second.
	statuses := map[int]int{}
	jobs := make(chan int)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r, _ := http.NewRequest(http.MethodPost, g.url+"/v1/metrics",
					bytes.NewReader(otlpfixture.Proto(otlpfixture.Build(sample(int64(1+i/1000))))))
				r.Header.Set("Authorization", "Bearer "+credentials[i%1000])
				r.Header.Set("Content-Type", "application/x-protobuf")
				r.Header.Set("X-Forwarded-For", "198.51.100.7")
				resp, err := floodClient.Do(r)
				if err != nil {
					t.Error(err)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	for i := range 2000 {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if statuses[http.StatusOK] != 2000 {
		t.Fatalf("2,000 exports of 1,000 agents behind one address: %v; every one should be written", statuses)
	}
	if n := g.count(t, `SELECT count(*) FROM memory`); n != 2000 {
		t.Fatalf("%d memory rows, want 2,000", n)
	}
}
