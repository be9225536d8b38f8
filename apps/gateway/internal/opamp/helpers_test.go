package opamp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/open-telemetry/opamp-go/client"
	clienttypes "github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

// transports are the two ways an agent speaks OpAMP; every behaviour is tested over both.
var transports = []string{"websocket", "http"}

type harness struct {
	t        *testing.T
	store    *store.Store
	db       *pgxpool.Pool // the test's own view of the database
	server   *Server
	url      string // http://127.0.0.1:port
	sent     chan string
	listens  chan struct{}
	orgID    string
	serverID string
	secret   string
}

// testCredentialTTL is how long a checked credential is trusted in these tests.
const testCredentialTTL = 200 * time.Millisecond

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWithCredentialTTL(t, testCredentialTTL)
}

// newHarnessWithCredentialTTL trusts a checked credential for ttl.
func newHarnessWithCredentialTTL(t *testing.T, ttl time.Duration) *harness {
	t.Helper()
	return newHarnessWith(t, ttl, nil)
}

// newHarnessWith lets a test change the server's settings (its Store, batch timings, callbacks)
// before the server starts.
func newHarnessWith(t *testing.T, ttl time.Duration, customize func(*Settings)) *harness {
	t.Helper()
	dbURL := testdb.New(t)
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	db, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	h := &harness{t: t, store: st, db: db, sent: make(chan string, 64), listens: make(chan struct{}, 8), orgID: "org-opamp"}
	settings := Settings{
		Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Credentials:    store.NewCredentials(st.AuthenticateAgent, ttl, 100),
		ListenRetryMin: 20 * time.Millisecond, ListenRetryMax: 100 * time.Millisecond,
		// Reports and heartbeats are written at this interval; the default 5 s would only make
		// the tests that read a description or health wait.
		SeenFlushInterval: 250 * time.Millisecond,
		Callbacks: Callbacks{
			OnPolicySent: func(_, hash string) {
				select {
				case h.sent <- hash:
				default: // a test with many agents does not read them
				}
			},
			OnListening: func() { h.listens <- struct{}{} },
		},
	}
	if customize != nil {
		customize(&settings)
	}
	h.server, err = New(settings)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, h.server.Handler())
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.ConnContext = h.server.ConnContext()
	ts.Start()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { h.server.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done; ts.Close() })
	h.url = ts.URL
	h.waitListening()

	testdb.Org(t, h.db, h.orgID)
	h.serverID, h.secret = h.enrol("machine-1")
	return h
}

// enrol enrols another machine in the harness's organisation.
func (h *harness) enrol(machineID string) (serverID, secret string) {
	h.t.Helper()
	token, _ := testdb.EnrollmentToken(h.t, h.db, h.orgID, testdb.TokenValid)
	enrolled, err := h.store.Enroll(context.Background(), store.Enrollment{TokenHash: sha(token), MachineID: machineID, Hostname: "enrolled-name", OS: "linux"})
	if err != nil {
		h.t.Fatal(err)
	}
	return enrolled.ServerID, enrolled.Credential
}

// setFleetPolicy stores one effective policy for every server of the organisation in one
// transaction, as the worker's recompute of an organisation does.
func (h *harness) setFleetPolicy(intervalSeconds int) (document, hash string) {
	h.t.Helper()
	document = `{"schemaVersion":1,"telemetry":{"intervalSeconds":` + itoa(intervalSeconds) + `}}`
	hash = hex.EncodeToString(sha(document))
	_, err := h.db.Exec(context.Background(), `
		INSERT INTO server_effective_policies (org_id, server_id, document, hash) SELECT org_id, id, $2, $3 FROM servers WHERE org_id = $1
		ON CONFLICT (server_id) DO UPDATE SET document = EXCLUDED.document, hash = EXCLUDED.hash`, h.orgID, document, hash)
	if err != nil {
		h.t.Fatal(err)
	}
	return document, hash
}

func sha(s string) []byte { sum := sha256.Sum256([]byte(s)); return sum[:] }

func (h *harness) waitListening() {
	h.t.Helper()
	select {
	case <-h.listens:
	case <-time.After(60 * time.Second):
		h.t.Fatal("the OpAMP server never listened for policy changes")
	}
}

// setPolicy stores an effective policy as the worker does and returns its hash.
func (h *harness) setPolicy(intervalSeconds int) (document, hash string) {
	h.t.Helper()
	document = `{"schemaVersion":1,"telemetry":{"intervalSeconds":` + itoa(intervalSeconds) + `}}`
	hash = hex.EncodeToString(sha(document))
	_, err := h.db.Exec(context.Background(), `
		INSERT INTO server_effective_policies (org_id, server_id, document, hash) VALUES ($1, $2, $3, $4)
		ON CONFLICT (server_id) DO UPDATE SET document = EXCLUDED.document, hash = EXCLUDED.hash`,
		h.orgID, h.serverID, document, hash)
	if err != nil {
		h.t.Fatal(err)
	}
	return document, hash
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func (h *harness) expectSent(hash string) {
	h.t.Helper()
	select {
	case got := <-h.sent:
		if got != hash {
			h.t.Fatalf("sent policy %s, want %s", got, hash)
		}
	case <-time.After(60 * time.Second):
		h.t.Fatalf("policy %s was never sent", hash)
	}
}

func (h *harness) expectNothingSent(within time.Duration) {
	h.t.Helper()
	select {
	case got := <-h.sent:
		h.t.Fatalf("policy %s was sent again", got)
	case <-time.After(within):
	}
}

// policyStatus polls server_policy_status until check accepts it.
func (h *harness) policyStatus(check func(status, applied, reported, message string) bool) {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var status, message string
	var applied, reported *string
	for time.Now().Before(deadline) {
		err := h.db.QueryRow(context.Background(),
			`SELECT status, applied_hash, reported_hash, message FROM server_policy_status WHERE server_id = $1`, h.serverID).
			Scan(&status, &applied, &reported, &message)
		if err == nil && check(status, deref(applied), deref(reported), message) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("server_policy_status never matched; last: status=%q applied=%q reported=%q message=%q", status, deref(applied), deref(reported), message)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// fakeAgent is opamp-go's client acting as the agent; it answers each RemoteConfig with what
// decide returns (nil: APPLIED).
type fakeAgent struct {
	client   client.OpAMPClient
	received chan *protobufs.AgentRemoteConfig
	mu       sync.Mutex
	effect   []byte
	stopOnce sync.Once
}

// stop stops the client once: opamp-go's Stop blocks forever when called a second time.
func (a *fakeAgent) stop() {
	a.stopOnce.Do(func() { _ = a.client.Stop(context.Background()) })
}

type agentOptions struct {
	transport string
	heartbeat time.Duration // 0: opamp-go's default, and no ReportsHeartbeat
	secret    string
	status    *protobufs.RemoteConfigStatus // what a restarted agent remembers
	decide    func(body []byte) error
	silent    bool // receives RemoteConfig and never answers it
}

func (h *harness) startAgent(o agentOptions) *fakeAgent {
	h.t.Helper()
	a := &fakeAgent{received: make(chan *protobufs.AgentRemoteConfig, 16)}
	serverURL := h.url + Path
	if o.transport == "websocket" {
		a.client = client.NewWebSocket(nil)
		serverURL = "ws" + strings.TrimPrefix(serverURL, "http")
	} else {
		httpClient := client.NewHTTP(nil)
		httpClient.SetPollingInterval(50 * time.Millisecond)
		a.client = httpClient
	}
	caps := protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsRemoteConfig |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsEffectiveConfig |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsHealth
	must(h.t, a.client.SetAgentDescription(&protobufs.AgentDescription{
		IdentifyingAttributes: []*protobufs.KeyValue{stringAttr("service.version", "9.9.9")},
		NonIdentifyingAttributes: []*protobufs.KeyValue{
			stringAttr("host.name", "db-opamp"), stringAttr("os.type", "linux"), stringAttr("host.arch", "amd64"),
			{Key: CapabilitiesAttribute, Value: &protobufs.AnyValue{Value: &protobufs.AnyValue_ArrayValue{ArrayValue: &protobufs.ArrayValue{
				Values: []*protobufs.AnyValue{{Value: &protobufs.AnyValue_StringValue{StringValue: "ebpf.block_latency"}}}}}}},
		},
	}))
	// opamp-go refuses ReportsHealth before it has a health to report: capabilities come last.
	must(h.t, a.client.SetHealth(&protobufs.ComponentHealth{Healthy: true, Status: "running", StartTimeUnixNano: uint64(time.Now().UnixNano())}))
	var heartbeat *time.Duration
	if o.heartbeat > 0 {
		caps |= protobufs.AgentCapabilities_AgentCapabilities_ReportsHeartbeat
		heartbeat = &o.heartbeat
	}
	must(h.t, a.client.SetCapabilities(&caps))
	decide := o.decide
	if decide == nil {
		decide = func([]byte) error { return nil }
	}
	uid := uuid.New()
	err := a.client.Start(context.Background(), clienttypes.StartSettings{
		OpAMPServerURL:     serverURL,
		Header:             http.Header{"Authorization": {"Bearer " + o.secret}},
		InstanceUid:        clienttypes.InstanceUid(uid),
		RemoteConfigStatus: o.status,
		HeartbeatInterval:  heartbeat,
		Callbacks: clienttypes.Callbacks{
			OnMessage: func(ctx context.Context, msg *clienttypes.MessageData) {
				if msg.RemoteConfig == nil {
					return
				}
				a.received <- msg.RemoteConfig
				if o.silent {
					return
				}
				body := msg.RemoteConfig.GetConfig().GetConfigMap()[PolicyConfigName].GetBody()
				status := &protobufs.RemoteConfigStatus{LastRemoteConfigHash: msg.RemoteConfig.GetConfigHash(),
					Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED}
				if err := decide(body); err != nil {
					status.Status, status.ErrorMessage = protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED, err.Error()
				} else {
					a.mu.Lock()
					a.effect = body
					a.mu.Unlock()
					_ = a.client.UpdateEffectiveConfig(ctx)
				}
				_ = a.client.SetRemoteConfigStatus(status)
			},
			GetEffectiveConfig: func(context.Context) (*protobufs.EffectiveConfig, error) {
				a.mu.Lock()
				defer a.mu.Unlock()
				return &protobufs.EffectiveConfig{ConfigMap: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
					PolicyConfigName: {Body: a.effect, ContentType: "application/json"}}}}, nil
			},
		},
	})
	must(h.t, err)
	h.t.Cleanup(a.stop)
	return a
}

func (a *fakeAgent) expectConfig(t *testing.T, document, hash string) {
	t.Helper()
	select {
	case rc := <-a.received:
		file := rc.GetConfig().GetConfigMap()[PolicyConfigName]
		if hex.EncodeToString(rc.GetConfigHash()) != hash || file.GetContentType() != "application/json" {
			t.Fatalf("received config hash %x (%s), want %s (application/json)", rc.GetConfigHash(), file.GetContentType(), hash)
		}
		var got, want any
		_ = json.Unmarshal(file.GetBody(), &got)
		_ = json.Unmarshal([]byte(document), &want)
		if !jsonEqual(got, want) {
			t.Fatalf("received document %s, want %s", file.GetBody(), document)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the agent never received policy %s", hash)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func stringAttr(key, value string) *protobufs.KeyValue {
	return &protobufs.KeyValue{Key: key, Value: &protobufs.AnyValue{Value: &protobufs.AnyValue_StringValue{StringValue: value}}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
