package agent

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"
	opampserver "github.com/open-telemetry/opamp-go/server"
	servertypes "github.com/open-telemetry/opamp-go/server/types"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/spindle-io/spindle/agent/internal/opamp"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

// point is one decoded data point of a batch.
type point struct {
	value  int64
	double float64 // the value of a double point (value is then 0)
	attrs  map[string]string
}

// policyGateway is a loopback gateway for the run loop: /v1/metrics decodes each batch as the
// real gateway does (gzip, OTLP protobuf) and keeps its points; /v1/opamp is opamp-go's own
// server, offering the current policy and keeping the agent's RemoteConfigStatus reports.
type policyGateway struct {
	t   *testing.T
	url string

	mu       sync.Mutex
	batches  []map[string][]point // metric name → points, one map per batch in arrival order
	document []byte
	hash     []byte
	statuses []*protobufs.RemoteConfigStatus
	conns    []servertypes.Connection
	// offered is, per connection, the hash last sent or reported on it: like the real gateway,
	// the policy is offered again only when the agent's answer or the policy changes, not on every
	// message (opamp-go leaves an unchanged status out of later messages).
	offered map[servertypes.Connection]string
}

func newPolicyGateway(t *testing.T) *policyGateway {
	g := &policyGateway{t: t, offered: map[servertypes.Connection]string{}}
	srv := opampserver.New(nil)
	handler, connContext, err := srv.Attach(opampserver.Settings{Callbacks: servertypes.Callbacks{OnConnecting: g.onConnecting}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(opamp.Path, handler)
	mux.HandleFunc("/v1/metrics", g.metrics)
	ts := httptest.NewUnstartedServer(mux)
	ts.Listener.Close()
	ts.Listener = testutil.Listen(t)
	ts.Config.ConnContext = connContext
	ts.Start()
	t.Cleanup(ts.Close)
	g.url = ts.URL
	return g
}

func (g *policyGateway) metrics(w http.ResponseWriter, r *http.Request) {
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		g.t.Errorf("batch is not gzip: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	raw, _ := io.ReadAll(zr)
	var req colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		g.t.Errorf("batch is not OTLP: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	batch := map[string][]point{}
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				batch[m.Name] = append(batch[m.Name], points(m)...)
			}
		}
	}
	g.mu.Lock()
	g.batches = append(g.batches, batch)
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func points(m *metricpb.Metric) []point {
	var dps []*metricpb.NumberDataPoint
	switch d := m.Data.(type) {
	case *metricpb.Metric_Gauge:
		dps = d.Gauge.DataPoints
	case *metricpb.Metric_Sum:
		dps = d.Sum.DataPoints
	}
	var out []point
	for _, dp := range dps {
		p := point{value: dp.GetAsInt(), double: dp.GetAsDouble(), attrs: map[string]string{}}
		for _, kv := range dp.Attributes {
			p.attrs[kv.Key] = kv.Value.GetStringValue()
		}
		out = append(out, p)
	}
	return out
}

// setPolicy offers document from now on (nil: no policy) and pushes it over open WebSockets.
func (g *policyGateway) setPolicy(document string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if document == "" {
		g.document, g.hash = nil, nil
		return ""
	}
	sum := sha256.Sum256([]byte(document))
	g.document, g.hash = []byte(document), sum[:]
	for _, conn := range g.conns {
		g.offered[conn] = hex.EncodeToString(g.hash)
		_ = conn.Send(context.Background(), &protobufs.ServerToAgent{RemoteConfig: g.remoteConfig()})
	}
	return hex.EncodeToString(sum[:])
}

func (g *policyGateway) remoteConfig() *protobufs.AgentRemoteConfig {
	return &protobufs.AgentRemoteConfig{ConfigHash: g.hash, Config: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
		opamp.PolicyConfigName: {Body: g.document, ContentType: "application/json"}}}}
}

func (g *policyGateway) onConnecting(*http.Request) servertypes.ConnectionResponse {
	return servertypes.ConnectionResponse{Accept: true, ConnectionCallbacks: servertypes.ConnectionCallbacks{
		OnConnected: func(_ context.Context, conn servertypes.Connection) {
			g.mu.Lock()
			g.conns = append(g.conns, conn)
			g.mu.Unlock()
		},
		OnMessage: func(_ context.Context, conn servertypes.Connection, msg *protobufs.AgentToServer) *protobufs.ServerToAgent {
			g.mu.Lock()
			defer g.mu.Unlock()
			if s := msg.GetRemoteConfigStatus(); s != nil {
				g.statuses = append(g.statuses, s)
				g.offered[conn] = hex.EncodeToString(s.GetLastRemoteConfigHash())
			}
			response := &protobufs.ServerToAgent{InstanceUid: msg.GetInstanceUid()}
			if want := hex.EncodeToString(g.hash); g.hash != nil && g.offered[conn] != want {
				g.offered[conn] = want
				response.RemoteConfig = g.remoteConfig()
			}
			return response
		},
	}}
}

// waitLimit only bounds how long a broken agent keeps the test waiting: a loaded machine running
// the race detector (load 20 on 2 cores in CI) takes many seconds for what takes milliseconds idle.
const waitLimit = 90 * time.Second

// waitStatus waits for the agent's final answer (APPLIED or FAILED) about hash.
func (g *policyGateway) waitStatus(hash string) *protobufs.RemoteConfigStatus {
	g.t.Helper()
	for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		g.mu.Lock()
		for _, s := range g.statuses {
			if hex.EncodeToString(s.GetLastRemoteConfigHash()) == hash && s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLYING {
				g.mu.Unlock()
				return s
			}
		}
		g.mu.Unlock()
	}
	g.t.Fatalf("the agent never answered policy %s", hash)
	return nil
}

// waitBatch waits for a batch, arriving after the first `after` batches, that satisfies ok, and
// returns the number of batches seen so far.
func (g *policyGateway) waitBatch(what string, after int, ok func(map[string][]point) bool) int {
	g.t.Helper()
	for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		g.mu.Lock()
		n := len(g.batches)
		for i := after; i < n; i++ {
			if ok(g.batches[i]) {
				g.mu.Unlock()
				return n
			}
		}
		g.mu.Unlock()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var seen []string
	for i := max(after, len(g.batches)-3); i < len(g.batches); i++ {
		seen = append(seen, fmt.Sprintf("batch %d: %s", i, describeBatch(g.batches[i])))
	}
	g.t.Fatalf("no batch with %s arrived in %s; the last ones:\n%s", what, waitLimit, strings.Join(seen, "\n"))
	return 0
}

// describeBatch lists a batch's acceleration and fragmentation points, for failure messages.
func describeBatch(batch map[string][]point) string {
	var parts []string
	for name, points := range batch {
		if strings.HasPrefix(name, "spindle.read_cache.") || strings.HasPrefix(name, "spindle.write_opt.") || strings.HasPrefix(name, "spindle.fragmentation.files") {
			parts = append(parts, fmt.Sprintf("%s=%v", name, points))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// anyBatch says whether a batch since after satisfies ok, without waiting.
func (g *policyGateway) anyBatch(after int, ok func(map[string][]point) bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := after; i < len(g.batches); i++ {
		if ok(g.batches[i]) {
			return true
		}
	}
	return false
}

func (g *policyGateway) batchCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.batches)
}

// value is the one point of name (with the given file.path or scan root, if any) in a batch.
func value(batch map[string][]point, name string, attrs ...string) (int64, bool) {
	for _, p := range batch[name] {
		matches := true
		for i := 0; i+1 < len(attrs); i += 2 {
			matches = matches && p.attrs[attrs[i]] == attrs[i+1]
		}
		if matches {
			return p.value, true
		}
	}
	return 0, false
}
