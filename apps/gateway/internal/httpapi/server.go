package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/installer"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// Options configure the handler; config.Config supplies them in production.
type Options struct {
	Store        *store.Store
	Logger       *slog.Logger
	PublicURL    string
	AgentDistDir string
	MaxBodyBytes int64
	// MaxConcurrentWrites requests run against the database at once, MaxQueuedWrites wait up
	// to MaxQueueWait for a turn, the rest get 429.
	MaxConcurrentWrites int
	MaxQueuedWrites     int
	MaxQueueWait        time.Duration
	// OpAMP, when set, serves /v1/opamp (internal/opamp). It bypasses the request logger, whose
	// response wrapper would hide the http.Hijacker a WebSocket upgrade needs; the OpAMP server
	// logs connections itself.
	OpAMP http.Handler
}

// DefaultMaxQueueWait keeps a queued request's wait well below an agent's export timeout.
const DefaultMaxQueueWait = 2 * time.Second

type server struct {
	store         *store.Store
	log           *slog.Logger
	agentDistDir  string
	maxBodyBytes  int64
	writes        *admission
	installScript []byte
}

// New returns the gateway's HTTP handler.
func New(opts Options) (http.Handler, error) {
	_, handler, err := newServer(opts)
	return handler, err
}

func newServer(opts Options) (*server, http.Handler, error) {
	script, err := installer.Render(opts.PublicURL)
	if err != nil {
		return nil, nil, err
	}
	if opts.MaxConcurrentWrites < 1 || opts.MaxBodyBytes < 1 {
		return nil, nil, fmt.Errorf("httpapi: MaxConcurrentWrites and MaxBodyBytes must be positive")
	}
	if opts.MaxQueueWait <= 0 {
		opts.MaxQueueWait = DefaultMaxQueueWait
	}
	s := &server{
		store:         opts.Store,
		log:           opts.Logger,
		agentDistDir:  opts.AgentDistDir,
		maxBodyBytes:  opts.MaxBodyBytes,
		writes:        newAdmission(opts.MaxConcurrentWrites, opts.MaxQueuedWrites, opts.MaxQueueWait),
		installScript: script,
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/metrics", only(http.MethodPost, s.handleMetrics))
	mux.Handle("/v1/enroll", only(http.MethodPost, s.handleEnroll))
	mux.Handle("/healthz", only(http.MethodGet, s.handleHealth))
	mux.Handle("/install.sh", only(http.MethodGet, s.handleInstallScript))
	mux.Handle("/download/{name}", only(http.MethodGet, s.handleDownload))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, reasonNotFound, fmt.Sprintf("there is nothing at %s; see docs/agent-protocol.md for the gateway's endpoints", r.URL.Path))
	})
	handler := s.logRequests(s.recoverPanics(mux))
	if opts.OpAMP != nil {
		outer := http.NewServeMux()
		outer.Handle("/v1/opamp", s.recoverPanics(opts.OpAMP))
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
