package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/groupcommit"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/installer"
	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// Options configure the handler; config.Config supplies them in production.
type Options struct {
	Store        *store.Store
	Logger       *slog.Logger
	PublicURL    string
	AgentDistDir string
	// SigningKey signs SHA256SUMS (GET /download/SHA256SUMS.sig); install.sh pins its public key.
	SigningKey signing.Key
	// Releases are the agent versions served under /download/<version>/ (and as package
	// repositories); nil serves none.
	Releases     *releases.Catalogue
	MaxBodyBytes int64
	// Writes coalesces the exports' database work into group transactions (groupcommit);
	// default: one over Store with no window and two writers, never closed (tests).
	Writes *groupcommit.Committer
	// MaxConcurrentWrites requests are decoded and written at once, MaxQueuedWrites wait up
	// to MaxQueueWait for a turn, the rest get 429.
	MaxConcurrentWrites int
	MaxQueuedWrites     int
	MaxQueueWait        time.Duration
	// MaxConcurrentEnrolls enrolments run at once (their own pool, so installs never take the
	// slots exports need); as many again may wait. Default 2.
	MaxConcurrentEnrolls int
	// BodyReadTimeout bounds how long a body may take to arrive; it is read before admission.
	BodyReadTimeout time.Duration
	// RatePerAddress and RatePerCredential limit requests (429 + Retry-After); zero PerSecond
	// turns a limit off. TrustedProxies are the peers whose X-Forwarded-For names the client.
	RatePerAddress    RateLimit
	RatePerCredential RateLimit
	TrustedProxies    []netip.Prefix
	// Bounds limit the timestamps and devices of one export (ingest.DefaultBounds when zero).
	Bounds ingest.Bounds
	// Credentials checks agent credentials for exports, renewals and proof runs. Default: a
	// cache over Store.AuthenticateAgent.
	Credentials *store.Credentials
	// OpAMPCredentials is the OpAMP server's cache; the OpAMP gate reads it (never the database)
	// to tell an agent checked within the TTL from a guess. Default: Credentials.
	OpAMPCredentials *store.Credentials
	// OpAMPLimits bound the OpAMP endpoint (defaults when zero).
	OpAMPLimits OpAMPLimits
	// OpAMP, when set, serves /v1/opamp (internal/opamp). It bypasses the request logger, whose
	// response wrapper would hide the http.Hijacker a WebSocket upgrade needs; the OpAMP server
	// logs connections itself.
	OpAMP http.Handler
	// ProofRunWaker wakes agents long-polling for proof runs (proofrunwake.Waker); without it they
	// are answered by polling the database every second.
	ProofRunWaker ProofRunWaker
	// Draining, closed when the gateway begins to shut down, answers the agents' proof-run long
	// polls at once (204, nothing to do), so shutting down waits for in-flight exports only,
	// not for polls of up to 30 s. Nil: never.
	Draining <-chan struct{}
	// RelayCredentials are the spr_ credentials of the OpenTelemetry Collectors allowed to relay
	// many agents' exports in one request (SPINDLE_RELAY_CREDENTIALS; relay.go).
	RelayCredentials []string
	// MaxProofRunReportBytes bounds a proof run's final report. Default DefaultMaxProofRunReportBytes.
	MaxProofRunReportBytes int64
}

// DefaultMaxQueueWait keeps a queued request's wait well below an agent's export timeout.
const DefaultMaxQueueWait = 2 * time.Second

// DefaultMaxConcurrentEnrolls: enrolment is rare (once per install).
const DefaultMaxConcurrentEnrolls = 2

type server struct {
	store         *store.Store
	groupWrites   *groupcommit.Committer
	log           *slog.Logger
	agentDistDir  string
	maxBodyBytes  int64
	writes        *admission
	enrolls       *admission
	installScript []byte
	signingKey    signing.Key
	releases      *releases.Catalogue

	bodyReadTimeout        time.Duration
	perAddr                *rateLimiter
	perCredential          *rateLimiter
	trustedProxies         []netip.Prefix
	bounds                 ingest.Bounds
	opampLimits            OpAMPLimits
	opampAdmission         *admission
	credentials            *store.Credentials
	recent                 *recentBatches
	proofRunWaker          ProofRunWaker
	draining               <-chan struct{}
	maxProofRunReportBytes int64
	relays                 relayCredentials
	gates                  gatePools
	health                 *healthCheck
	checksums              *checksumCache
}

// New returns the gateway's HTTP handler.
func New(opts Options) (http.Handler, error) {
	_, handler, err := newServer(opts)
	return handler, err
}

func newServer(opts Options) (*server, http.Handler, error) {
	if opts.SigningKey.IsZero() {
		return nil, nil, fmt.Errorf("httpapi: a SigningKey is required: install.sh pins its public key")
	}
	script, err := installer.Render(opts.PublicURL, opts.SigningKey.PublicKeyPEM())
	if err != nil {
		return nil, nil, err
	}
	if opts.MaxConcurrentWrites < 1 || opts.MaxBodyBytes < 1 {
		return nil, nil, fmt.Errorf("httpapi: MaxConcurrentWrites and MaxBodyBytes must be positive")
	}
	if opts.MaxQueueWait <= 0 {
		opts.MaxQueueWait = DefaultMaxQueueWait
	}
	if opts.MaxConcurrentEnrolls < 1 {
		opts.MaxConcurrentEnrolls = DefaultMaxConcurrentEnrolls
	}
	if opts.BodyReadTimeout <= 0 {
		opts.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if opts.Bounds == (ingest.Bounds{}) {
		opts.Bounds = ingest.DefaultBounds()
	}
	opts.OpAMPLimits.setDefaults()
	if opts.Credentials == nil && opts.Store != nil {
		opts.Credentials = store.NewCredentials(opts.Store.AuthenticateAgent, store.DefaultCredentialTTL, store.DefaultCredentialCacheLimit)
	}
	if opts.OpAMPCredentials == nil {
		opts.OpAMPCredentials = opts.Credentials
	}
	if opts.Writes == nil && opts.Store != nil {
		opts.Writes = groupcommit.New(groupcommit.Settings{Store: opts.Store})
	}
	if opts.MaxProofRunReportBytes <= 0 {
		opts.MaxProofRunReportBytes = DefaultMaxProofRunReportBytes
	}
	s := &server{
		proofRunWaker:          opts.ProofRunWaker,
		draining:               opts.Draining,
		maxProofRunReportBytes: opts.MaxProofRunReportBytes,
		store:                  opts.Store,
		groupWrites:            opts.Writes,
		log:                    opts.Logger,
		agentDistDir:           opts.AgentDistDir,
		maxBodyBytes:           opts.MaxBodyBytes,
		writes:                 newAdmission(opts.MaxConcurrentWrites, opts.MaxQueuedWrites, opts.MaxQueueWait),
		enrolls:                newAdmission(opts.MaxConcurrentEnrolls, opts.MaxConcurrentEnrolls, opts.MaxQueueWait),
		installScript:          script,
		signingKey:             opts.SigningKey,
		releases:               opts.Releases,

		bodyReadTimeout: opts.BodyReadTimeout,
		perAddr:         newRateLimiter(opts.RatePerAddress, time.Now),
		perCredential:   newRateLimiter(opts.RatePerCredential, time.Now),
		trustedProxies:  opts.TrustedProxies,
		bounds:          opts.Bounds,
		opampLimits:     opts.OpAMPLimits,
		credentials:     opts.Credentials,
		relays:          newRelayCredentials(opts.RelayCredentials),
		recent:          newRecentBatches(),
		opampAdmission:  newAdmission(opts.OpAMPLimits.MaxConcurrent, opts.OpAMPLimits.MaxQueued, opts.MaxQueueWait),
		gates:           newGatePools(opts.MaxQueueWait),
		checksums:       newChecksumCache(),
	}
	packageRepos, err := newPackageRepositories(opts.SigningKey, opts.PublicURL)
	if err != nil {
		return nil, nil, err
	}
	s.health = newHealthCheck(s.store)
	// Every endpoint passes a gate (gate.go): agent endpoints charge their address for failures
	// only, public ones for every request.
	agent := func(h http.HandlerFunc) http.HandlerFunc { return s.agentEndpoint(s.credentials.Known, h) }
	mux := http.NewServeMux()
	mux.Handle("/v1/metrics", only(http.MethodPost, agent(s.handleMetrics)))
	mux.Handle("/v1/enroll", only(http.MethodPost, agent(s.handleEnroll)))
	// /v1/bench/… is the proof runs' old prefix, kept for agents released before issue 28.
	for _, prefix := range []string{"/v1/proof-runs", "/v1/bench"} {
		mux.Handle(prefix+"/profiles", only(http.MethodPost, agent(s.handleProofRunProfiles)))
		mux.Handle(prefix+"/next", only(http.MethodGet, agent(s.handleProofRunNext)))
		mux.Handle(prefix+"/runs/{id}/progress", only(http.MethodPost, agent(s.handleProofRunProgress)))
		mux.Handle(prefix+"/runs/{id}/finish", only(http.MethodPost, agent(s.handleProofRunFinish)))
	}
	mux.Handle("/v1/renew", only(http.MethodPost, agent(s.handleRenew)))
	mux.Handle("/healthz", only(http.MethodGet, s.publicEndpoint(s.handleHealth)))
	mux.Handle("/livez", only(http.MethodGet, s.publicEndpoint(handleLive)))
	mux.Handle("/metrics", only(http.MethodGet, s.publicEndpoint(s.handleOpsMetrics)))
	mux.Handle("/install.sh", only(http.MethodGet, s.publicEndpoint(s.handleInstallScript)))
	mux.Handle("/download/{name}", only(http.MethodGet, s.publicEndpoint(s.handleDownload)))
	mux.Handle("/download/{version}/{name}", only(http.MethodGet, s.publicEndpoint(s.handleReleaseDownload)))
	for name, repo := range packageRepos {
		mux.Handle("/"+name+"/{path...}", only(http.MethodGet, s.publicEndpoint(s.handlePackageRepository(name, repo))))
	}
	mux.HandleFunc("/", s.publicEndpoint(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("there is nothing at %s; see docs/agent-protocol.md for the gateway's endpoints", r.URL.Path))
	}))
	handler := s.logRequests(s.recoverPanics(mux))
	if opts.OpAMP != nil {
		outer := http.NewServeMux()
		outer.Handle("/v1/opamp", s.recoverPanics(s.agentEndpoint(opts.OpAMPCredentials.Known, s.guardOpAMP(opts.OpAMP))))
		outer.Handle("/", handler)
		handler = outer
	}
	return s, handler, nil
}

// only answers other methods with a JSON 405 (the mux's own is plain text). GET covers HEAD.
func only(method string, handler http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, reasonMethodNotAllowed, fmt.Sprintf("%s takes %s requests", r.URL.Path, method))
			return
		}
		handler(w, r)
	})
}

func (s *server) handleInstallScript(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/x-shellscript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(s.installScript)
}

func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if recovered := recover(); recovered != nil {
				if recovered == http.ErrAbortHandler {
					panic(recovered)
				}
				s.log.Error("handler panicked", "path", r.URL.Path, "panic", recovered)
				writeInternal(w)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController and MaxBytesReader reach the real writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// logRequests logs every request: successes at debug (agents export every few seconds),
// client errors at info, server errors at warn.
func (s *server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started := time.Now()
		recorder := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(recorder, r)
		level := slog.LevelDebug
		switch {
		case recorder.status >= 500:
			level = slog.LevelWarn
		case recorder.status >= 400:
			level = slog.LevelInfo
		}
		s.log.Log(r.Context(), level, "request", "method", r.Method, "path", r.URL.Path, "status", recorder.status,
			"duration_ms", time.Since(started).Milliseconds(), "remote", r.RemoteAddr)
	})
}
