// Package opamp is the gateway's OpAMP server (open-telemetry/opamp-go, WebSocket and plain
// HTTP transports) at /v1/opamp. Agents authenticate with their own credential, report their
// description, capabilities, health, effective config and RemoteConfigStatus; the gateway sends
// each agent its server's effective policy (server_effective_policies, materialised by the
// worker) as RemoteConfig when the agent's last-received hash differs, and again whenever
// spindle_effective_policy_changed names a server connected here. docs/agent-protocol.md, "OpAMP".
//
// Concurrency: opamp-go calls one connection's callbacks one at a time, different connections
// concurrently. Callbacks never wait for the database on a WebSocket: they queue what the agent
// said for the batch writers (coalescer.go). Pushes run on the fan-out's goroutines (fanout.go);
// the connection's own lock orders them with the callbacks, and opamp-go's WebSocket connection
// serialises the writes themselves.
package opamp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	opampserver "github.com/open-telemetry/opamp-go/server"
	servertypes "github.com/open-telemetry/opamp-go/server/types"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// Path is where agents reach the OpAMP server on the gateway's listener.
const Path = "/v1/opamp"

// Store is what the OpAMP server needs from the database. *store.Store implements it.
type Store interface {
	AuthenticateAgent(ctx context.Context, credentialHash []byte) (store.Agent, error)
	EffectivePolicy(ctx context.Context, agent store.Agent) (store.EffectivePolicy, error)
	ReportedPolicyHash(ctx context.Context, agent store.Agent) (string, error)
	RecordPolicySent(ctx context.Context, agent store.Agent, hash string) error
	RecordAgentUpdates(ctx context.Context, updates []store.AgentUpdate) error
	RecordAgentReports(ctx context.Context, updates []store.AgentUpdate) error
	RecordPolicyStatuses(ctx context.Context, updates []store.AgentUpdate) error
	PolicyTargets(ctx context.Context, orgID string, serverIDs []string) (map[string]store.PolicyTarget, error)
	RecordPoliciesSent(ctx context.Context, orgID string, hashes map[string]string) error
	AuthenticateAgents(ctx context.Context, credentialHashes [][]byte) (map[string]store.CredentialCheck, error)
	Listen(ctx context.Context, channels ...string) (*pgx.Conn, error)
}

var _ Store = (*store.Store)(nil)

// Settings configure the server. Store and Logger are required.
type Settings struct {
	Store  Store
	Logger *slog.Logger
	// DatabaseTimeout bounds the database work of one message. Default 10 s.
	DatabaseTimeout time.Duration
	// ListenRetryMin and ListenRetryMax bound the backoff of the LISTEN connection. Defaults 1 s, 30 s.
	ListenRetryMin, ListenRetryMax time.Duration
	// Credentials checks every credential (the WebSocket upgrade, each plain-HTTP poll and each
	// WebSocket message); share the gateway's one instance so ingest and OpAMP agree. Default: a
	// cache over Store.AuthenticateAgent with store.DefaultCredentialTTL.
	Credentials *store.Credentials
	// MaxConnectionsPerAgent bounds the WebSockets one credential holds open (an agent needs one,
	// two while it reconnects). Default 4.
	MaxConnectionsPerAgent int
	// SeenFlushInterval is how often what the agents heard from said about themselves ("last
	// seen", description, capabilities, health, effective config) is written, for all of them in
	// one statement per table and MaxBatch agents. Default 5 s: well inside the console's 30 s
	// online window, which telemetry every 10 s keeps fresh anyway.
	SeenFlushInterval time.Duration
	// ReportLinger is how long a RemoteConfigStatus waits for others to share its batch write.
	// Default 20 ms.
	ReportLinger time.Duration
	// StatusWriters is how many policy-status batches may be written at once, each on its own
	// connection: a fleet-wide change brings 10,000 confirmations within a second or two, and
	// the database can upsert one batch while it commits another. Default 2.
	StatusWriters int
	// PendingMarkDelay is how long a pushed policy waits for the agent's answer before the
	// server's row is marked pending on it; an agent answering sooner costs one write (its
	// APPLIED or FAILED), not two. Default 10 s: a healthy agent answers well within a second,
	// and a busy host whose agents answer late should not pay for every change twice.
	PendingMarkDelay time.Duration
	// FanoutLinger is how long a policy-change notification waits for the others of the same
	// commit, so a fleet-wide change is read once per organisation: the gathering goes on while
	// notifications keep arriving within this gap, up to 200 ms. Default 10 ms.
	FanoutLinger time.Duration
	// MaxBatch bounds the agents in one batch write (and writes at once when this many wait).
	// Default 1000: a write stays well inside DatabaseTimeout on a busy database.
	MaxBatch int
	// Releases, when set, are the agent versions this gateway serves: live upgrade attempts are
	// offered from them (upgrades.go), at PublicURL + /download/<version>/<file>. UpgradeStore
	// reads and records the attempts (default: Store, when it implements UpgradeStore).
	Releases     Releases
	PublicURL    string
	UpgradeStore UpgradeStore
	// Callbacks observe what the server does (tests, metrics). Every field is optional.
	Callbacks Callbacks
	// timers, when set (tests only), starts the waits that decide when the agents' rows are
	// written and the credentials swept, so a test can fire them by hand (standback.go).
	timers timers
}

// Callbacks are called after the event they name, from the goroutine that handled it; they must
// not block.
type Callbacks struct {
	// OnReportsWritten: a batch of n agents' reports or heartbeats was written (err nil) or
	// failed and will be retried.
	OnReportsWritten func(n int, err error)
	// OnPolicySent: a RemoteConfig with this hash went to the agent of serverID.
	OnPolicySent func(serverID, hash string)
	// OnListening: the LISTEN connection is (re)established.
	OnListening func()
}

func (c *Callbacks) setDefaults() {
	if c.OnPolicySent == nil {
		c.OnPolicySent = func(string, string) {}
	}
	if c.OnListening == nil {
		c.OnListening = func() {}
	}
	if c.OnReportsWritten == nil {
		c.OnReportsWritten = func(int, error) {}
	}
}

// Defaults of Settings.
const (
	DefaultMaxConnectionsPerAgent = 4
	DefaultSeenFlushInterval      = 5 * time.Second
	DefaultReportLinger           = 20 * time.Millisecond
	DefaultStatusWriters          = 2
	DefaultPendingMarkDelay       = 10 * time.Second
	DefaultFanoutLinger           = 10 * time.Millisecond
	DefaultMaxBatch               = 1000
)

// Server is the gateway's OpAMP server.
type Server struct {
	settings     Settings
	opamp        opampserver.OpAMPServer
	handler      opampserver.HTTPHandlerFunc
	connContext  opampserver.ConnContext
	registry     *registry
	fanout       *fanout
	seen         *coalescer[store.AgentUpdate] // every message: last seen, and what the agent said about itself
	statuses     *coalescer[store.AgentUpdate] // RemoteConfigStatus: server_policy_status
	pendingMarks *coalescer[sentMark]          // pushes not answered within PendingMarkDelay
	upgrades     *upgrades                     // upgrade offers to look at
}

// New prepares the server; mount Handler at Path and set ConnContext on the http.Server.
func New(settings Settings) (*Server, error) {
	if settings.Store == nil || settings.Logger == nil {
		return nil, errors.New("opamp: Settings.Store and Settings.Logger are required")
	}
	if settings.DatabaseTimeout <= 0 {
		settings.DatabaseTimeout = 10 * time.Second
	}
	if settings.ListenRetryMin <= 0 {
		settings.ListenRetryMin = time.Second
	}
	if settings.ListenRetryMax < settings.ListenRetryMin {
		settings.ListenRetryMax = max(30*time.Second, settings.ListenRetryMin)
	}
	if settings.Credentials == nil {
		settings.Credentials = store.NewCredentials(settings.Store.AuthenticateAgent, store.DefaultCredentialTTL, store.DefaultCredentialCacheLimit)
	}
	if settings.MaxConnectionsPerAgent <= 0 {
		settings.MaxConnectionsPerAgent = DefaultMaxConnectionsPerAgent
	}
	settings.SeenFlushInterval = positiveOr(settings.SeenFlushInterval, DefaultSeenFlushInterval)
	settings.ReportLinger = positiveOr(settings.ReportLinger, DefaultReportLinger)
	settings.PendingMarkDelay = positiveOr(settings.PendingMarkDelay, DefaultPendingMarkDelay)
	settings.FanoutLinger = positiveOr(settings.FanoutLinger, DefaultFanoutLinger)
	if settings.MaxBatch <= 0 {
		settings.MaxBatch = DefaultMaxBatch
	}
	if settings.StatusWriters <= 0 {
		settings.StatusWriters = DefaultStatusWriters
	}
	settings.Callbacks.setDefaults()
	if settings.UpgradeStore == nil {
		settings.UpgradeStore, _ = settings.Store.(UpgradeStore)
	}
	if settings.UpgradeStore == nil {
		settings.Releases = nil // nothing to read offers from: none are made
	}
	s := &Server{settings: settings, registry: newRegistry()}
	s.fanout = newFanout(s)
	s.upgrades = newUpgrades(s)
	// One writer of agents' and servers' rows, at its interval even when a fleet-wide change makes
	// every agent speak at once: those writes would only compete with the confirmations, and an
	// agent's row is written once per interval whatever it said meanwhile.
	s.seen = newCoalescer("agent reports", settings.SeenFlushInterval, settings.MaxBatch, false, settings.DatabaseTimeout,
		settings.Logger, mergeUpdates, settings.Store.RecordAgentReports)
	s.statuses = newCoalescer("policy statuses", settings.ReportLinger, settings.MaxBatch, true, settings.DatabaseTimeout,
		settings.Logger, mergeUpdates, settings.Store.RecordPolicyStatuses)
	// Never flushed early for being many: a fleet-wide push must still give every agent its delay.
	s.pendingMarks = newCoalescer("pending marks", settings.PendingMarkDelay, math.MaxInt, false, settings.DatabaseTimeout,
		settings.Logger, newerMark, s.writePendingMarks)
	// A fleet-wide change makes every agent speak at once: the next flush of their rows (10,000
	// agents and servers rows) waits until the confirmations are written, by one more interval at
	// most ("last seen" is then at most two intervals old, well inside the 30 s online window).
	s.seen.yield, s.seen.maxYield = s.changeInFlight, settings.SeenFlushInterval
	s.seen.lingerTimer, s.seen.yieldTimer = s.timer(waitRowsLinger), s.timer(waitRowsStandBack)
	s.seen.onFlush, s.statuses.onFlush = settings.Callbacks.OnReportsWritten, settings.Callbacks.OnReportsWritten
	s.opamp = opampserver.New(&logAdapter{log: settings.Logger})
	handler, connContext, err := s.opamp.Attach(opampserver.Settings{
		Callbacks: servertypes.Callbacks{OnConnecting: s.onConnecting},
	})
	if err != nil {
		return nil, fmt.Errorf("attach OpAMP server: %w", err)
	}
	s.handler, s.connContext = handler, connContext
	return s, nil
}

// Handler serves OpAMP over WebSocket (GET with Upgrade) and plain HTTP (POST protobuf).
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.handler) }

// ConnContext must be the http.Server's ConnContext: plain-HTTP OpAMP reads the net.Conn from it.
func (s *Server) ConnContext() func(context.Context, net.Conn) context.Context { return s.connContext }

// Run listens for effective-policy changes and writes the agents' reports until ctx ends, then
// closes every WebSocket connection (http.Server.Shutdown does not touch hijacked connections)
// and writes what is still queued. Agents reconnect to another gateway, or to this one when it
// is back.
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, task := range []func(context.Context){s.listen, s.fanout.run, s.sweepCredentialsEvery, s.upgrades.run} {
		wg.Add(1)
		go func() { defer wg.Done(); task(ctx) }()
	}
	writers, stopWriters := context.WithCancel(context.Background())
	var writing sync.WaitGroup
	runs := []func(context.Context){s.seen.run, s.pendingMarks.run}
	for range s.settings.StatusWriters {
		runs = append(runs, s.statuses.run)
	}
	for _, run := range runs {
		writing.Add(1)
		go func() { defer writing.Done(); run(writers) }()
	}
	<-ctx.Done()
	wg.Wait()
	connected := s.registry.size()
	s.registry.disconnectAll()
	s.settings.Logger.Info("closed the agents' OpAMP connections; they reconnect to another gateway, or here when it is back", "connections", connected)
	stopWriters() // each writer flushes what is queued once more
	writing.Wait()
}

// confirmationQuiet is how long after the last RemoteConfigStatus a policy change still counts as
// being confirmed: the agents' answers to one push arrive over a second or two, not all at once.
const confirmationQuiet = 100 * time.Millisecond

// changeInFlight says whether a policy change is being pushed or confirmed: the fan-out is at
// work, or policy statuses are waiting, being written, or arrived within confirmationQuiet.
func (s *Server) changeInFlight() bool {
	return s.fanout.active.Load() || s.statuses.busy(confirmationQuiet)
}

// ConnectedAgents is how many agents hold a WebSocket connection here (status and tests).
func (s *Server) ConnectedAgents() int { return s.registry.size() }

func (s *Server) dbContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.settings.DatabaseTimeout)
}

func positiveOr(d, fallback time.Duration) time.Duration {
	if d <= 0 {
		return fallback
	}
	return d
}

// effectiveConfigJSON keeps the document as JSON inside the stored report.
func effectiveConfigJSON(body []byte) any {
	var document any
	if json.Unmarshal(body, &document) == nil {
		return document
	}
	return string(body)
}
