package opamp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/open-telemetry/opamp-go/protobufs"
	opampserver "github.com/open-telemetry/opamp-go/server"
	servertypes "github.com/open-telemetry/opamp-go/server/types"

	"github.com/spindle-io/spindle/agent/internal/credential"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
	"github.com/spindle-io/spindle/agent/internal/policystate"
)

const secret = "spa_test-credential"

// gateway is opamp-go's own server standing in for the Spindle gateway: it checks the bearer
// credential, answers the first message of each connection with the current policy, and keeps
// what the agent reports.
type gateway struct {
	t        *testing.T
	url      string
	refuseWS atomic.Bool
	accepted atomic.Pointer[string] // the credential accepted now; nil: secret
	// credential, when set, is what the agent under test reads its credential from.
	credential func() string

	mu       sync.Mutex
	document []byte
	hash     []byte
	statuses []*protobufs.RemoteConfigStatus
	effect   []byte
	desc     *protobufs.AgentDescription
	uid      []byte
	conns    []servertypes.Connection
	polls    int
}

func newGateway(t *testing.T) *gateway {
	g := &gateway{t: t}
	srv := opampserver.New(nil)
	handler, connContext, err := srv.Attach(opampserver.Settings{Callbacks: servertypes.Callbacks{OnConnecting: g.onConnecting}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		if g.refuseWS.Load() && r.Header.Get("Upgrade") != "" {
			http.Error(w, "no websockets through this proxy", http.StatusBadRequest)
			return
		}
		handler(w, r)
	})
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.ConnContext = connContext
	ts.Start()
	t.Cleanup(ts.Close)
	g.url = ts.URL
	return g
}

func (g *gateway) setPolicy(document string) string {
	sum := sha256.Sum256([]byte(document))
	g.mu.Lock()
	defer g.mu.Unlock()
	g.document, g.hash = []byte(document), sum[:]
	return hex.EncodeToString(sum[:])
}

func (g *gateway) remoteConfig() *protobufs.AgentRemoteConfig {
	return &protobufs.AgentRemoteConfig{ConfigHash: g.hash, Config: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
		PolicyConfigName: {Body: g.document, ContentType: "application/json"}}}}
}

func (g *gateway) onConnecting(r *http.Request) servertypes.ConnectionResponse {
	want := secret
	if p := g.accepted.Load(); p != nil {
		want = *p
	}
	if r.Header.Get("Authorization") != "Bearer "+want {
		return servertypes.ConnectionResponse{Accept: false, HTTPStatusCode: http.StatusUnauthorized}
	}
	return servertypes.ConnectionResponse{Accept: true, ConnectionCallbacks: servertypes.ConnectionCallbacks{
		OnConnected: func(_ context.Context, conn servertypes.Connection) {
			g.mu.Lock()
			g.conns = append(g.conns, conn)
			g.mu.Unlock()
		},
		OnMessage: func(_ context.Context, _ servertypes.Connection, msg *protobufs.AgentToServer) *protobufs.ServerToAgent {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.polls++
			g.uid = msg.GetInstanceUid()
			if msg.GetAgentDescription() != nil {
				g.desc = msg.GetAgentDescription()
			}
			if s := msg.GetRemoteConfigStatus(); s != nil {
				g.statuses = append(g.statuses, s)
			}
			if ec := msg.GetEffectiveConfig(); ec != nil {
				g.effect = ec.GetConfigMap().GetConfigMap()[PolicyConfigName].GetBody()
			}
			response := &protobufs.ServerToAgent{InstanceUid: msg.GetInstanceUid()}
			last := msg.GetRemoteConfigStatus().GetLastRemoteConfigHash()
			if g.hash != nil && hex.EncodeToString(last) != hex.EncodeToString(g.hash) {
				response.RemoteConfig = g.remoteConfig()
			}
			return response
		},
	}}
}

// push sends the current policy over every WebSocket, as the gateway does on NOTIFY.
func (g *gateway) push() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, conn := range g.conns {
		_ = conn.Send(context.Background(), &protobufs.ServerToAgent{InstanceUid: g.uid, RemoteConfig: g.remoteConfig()})
	}
}

// waitStatus waits for a RemoteConfigStatus about hash and returns it.
func (g *gateway) waitStatus(hash string) *protobufs.RemoteConfigStatus {
	g.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		for _, s := range g.statuses {
			if hex.EncodeToString(s.GetLastRemoteConfigHash()) == hash && s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLYING {
				g.mu.Unlock()
				return s
			}
		}
		g.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	g.t.Fatalf("no RemoteConfigStatus for %s", hash)
	return nil
}

type agentUnderTest struct {
	client   *Client
	manager  *policystate.Manager
	interval atomic.Int64
}

func startAgent(t *testing.T, g *gateway, stateDir string, ebpfLoaded bool) *agentUnderTest {
	t.Helper()
	a := &agentUnderTest{}
	a.manager = policystate.NewManager(filepath.Join(stateDir, policystate.FileName), &policystate.TelemetryApplier{
		SetInterval: func(d time.Duration) { a.interval.Store(int64(d)) },
		EBPF: func() policystate.EBPFState {
			if ebpfLoaded {
				return policystate.EBPFState{Loaded: true}
			}
			return policystate.EBPFState{Missing: "ebpf.block_latency: switched off in agent.yaml (ebpf: off)"}
		},
	})
	if _, err := a.manager.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	client, err := New(Settings{
		Gateway: g.url, Credential: secret, CredentialFunc: g.credential, AgentID: "0195f3c2-7a8b-7c3d-9e4f-0123456789ab", Version: "1.2.3",
		Host:         hostinfo.Info{Hostname: "db-7", OS: "linux", Arch: "amd64"},
		Capabilities: []string{"ebpf.block_latency"}, Policy: a.manager,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		PollInterval: 50 * time.Millisecond, FallbackAfter: 2, RetryWebSocketAfter: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	client.Start(context.Background())
	t.Cleanup(client.Stop)
	a.client = client
	return a
}

func TestAppliesPoliciesAndReportsTheOutcome(t *testing.T) {
	g := newGateway(t)
	good := g.setPolicy(`{"schemaVersion":1,"telemetry":{"intervalSeconds":25}}`)
	a := startAgent(t, g, t.TempDir(), false)

	if s := g.waitStatus(good); s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED {
		t.Fatalf("status %v: %s", s.GetStatus(), s.GetErrorMessage())
	}
	if got := time.Duration(a.interval.Load()); got != 25*time.Second {
		t.Fatalf("interval %s, want 25 s", got)
	}
	g.mu.Lock()
	uid, _ := uuid.FromBytes(g.uid)
	hostname := g.desc.GetNonIdentifyingAttributes()[0].GetValue().GetStringValue()
	g.mu.Unlock()
	if uid.String() != "0195f3c2-7a8b-7c3d-9e4f-0123456789ab" || hostname != "db-7" {
		t.Fatalf("instance uid %s, hostname %q", uid, hostname)
	}
	waitFor(t, "effective config", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return strings.Contains(string(g.effect), `"intervalSeconds":25`)
	})

	// Pushed while connected: an eBPF demand this host cannot meet is refused with the reason.
	bad := g.setPolicy(`{"schemaVersion":1,"telemetry":{"intervalSeconds":5,"ebpf":"on"}}`)
	g.push()
	s := g.waitStatus(bad)
	if s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED ||
		!strings.Contains(s.GetErrorMessage(), `telemetry.ebpf is "on" but eBPF cannot be used on this server (ebpf.block_latency: switched off in agent.yaml (ebpf: off))`) {
		t.Fatalf("status %v: %q", s.GetStatus(), s.GetErrorMessage())
	}
	if got := time.Duration(a.interval.Load()); got != 25*time.Second || a.manager.State().Hash != good {
		t.Fatalf("after the refusal: interval %s, policy %s; want the previous policy kept", got, a.manager.State().Hash)
	}
	if st := a.client.Status(); st.Transport != TransportWebSocket || !st.Connected {
		t.Fatalf("client status %+v", st)
	}
}

func TestRestartKeepsThePolicyWithoutAGateway(t *testing.T) {
	g := newGateway(t)
	stateDir := t.TempDir()
	hash := g.setPolicy(`{"schemaVersion":1,"telemetry":{"intervalSeconds":40}}`)
	first := startAgent(t, g, stateDir, true)
	g.waitStatus(hash)
	first.client.Stop()

	// No gateway at all now: the policy is still in force from state_dir/policy.json.
	down := &gateway{t: t, url: "http://127.0.0.1:1"}
	again := startAgent(t, down, stateDir, true)
	if got := time.Duration(again.interval.Load()); got != 40*time.Second || again.manager.State().Hash != hash {
		t.Fatalf("after restart: interval %s, policy %q", got, again.manager.State().Hash)
	}
	waitFor(t, "a failed connection in status", func() bool { return again.client.Status().LastError != "" })
}

func TestFallsBackToHTTPPollingWhenWebSocketIsRefused(t *testing.T) {
	g := newGateway(t)
	g.refuseWS.Store(true)
	hash := g.setPolicy(`{"schemaVersion":1,"telemetry":{"intervalSeconds":12}}`)
	a := startAgent(t, g, t.TempDir(), true)
	if s := g.waitStatus(hash); s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED {
		t.Fatalf("status over HTTP: %v %s", s.GetStatus(), s.GetErrorMessage())
	}
	if st := a.client.Status(); st.Transport != TransportHTTP {
		t.Fatalf("transport %s, want http", st.Transport)
	}
	// The next policy arrives with a later poll.
	next := g.setPolicy(`{"schemaVersion":1,"telemetry":{"intervalSeconds":13}}`)
	if s := g.waitStatus(next); s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED {
		t.Fatalf("second policy over HTTP: %v", s.GetStatus())
	}
	if got := time.Duration(a.interval.Load()); got != 13*time.Second {
		t.Fatalf("interval %s, want 13 s", got)
	}
}

// After a renewal the gateway refuses the old credential at once: the next poll must carry the
// new one from the shared holder, without restarting the client.
func TestPollsCarryTheRenewedCredential(t *testing.T) {
	g := newGateway(t)
	g.refuseWS.Store(true)
	holder := credential.NewHolder(secret, time.Time{}, time.Time{})
	g.credential = holder.Secret
	hash := g.setPolicy(`{"schemaVersion":1,"telemetry":{"intervalSeconds":12}}`)
	startAgent(t, g, t.TempDir(), true)
	if s := g.waitStatus(hash); s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED {
		t.Fatalf("status over HTTP: %v %s", s.GetStatus(), s.GetErrorMessage())
	}
	renewed := "spa_renewed-credential"
	holder.Set(renewed, time.Now(), time.Now().Add(time.Hour))
	g.accepted.Store(&renewed) // the old one is refused from now on
	next := g.setPolicy(`{"schemaVersion":1,"telemetry":{"intervalSeconds":13}}`)
	if s := g.waitStatus(next); s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED {
		t.Fatalf("policy after renewal: %v %s", s.GetStatus(), s.GetErrorMessage())
	}
}

func TestInstanceUIDIsStable(t *testing.T) {
	if got := uuid.UUID(InstanceUID("0195f3c2-7a8b-7c3d-9e4f-0123456789ab")).String(); got != "0195f3c2-7a8b-7c3d-9e4f-0123456789ab" {
		t.Fatalf("uuid agent id became %s", got)
	}
	a, b := InstanceUID("legacy-agent"), InstanceUID("legacy-agent")
	if a != b || uuid.UUID(a).Version() != 5 {
		t.Fatalf("non-uuid agent id: %s / %s", uuid.UUID(a), uuid.UUID(b))
	}
}

func TestEndpoints(t *testing.T) {
	ws, plain, err := endpoints("https://spindle.example.com:4318/")
	if err != nil || ws != "wss://spindle.example.com:4318/v1/opamp" || plain != "https://spindle.example.com:4318/v1/opamp" {
		t.Fatalf("%s %s %v", ws, plain, err)
	}
	if _, _, err := endpoints("ftp://x"); err == nil {
		t.Fatal("ftp accepted")
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
