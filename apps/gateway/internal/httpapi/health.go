package httpapi

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

const healthTimeout = 2 * time.Second

// healthFresh is how long one successful database ping answers /healthz: a flood of probes
// costs one ping a second and one connection at most, and a load balancer still sees an outage
// within a second. A failed ping is not reused (the next probe pings again, sharing the ping in
// flight), so a recovered database is seen at once.
const healthFresh = time.Second

type healthBody struct {
	Status   string `json:"status"`
	Database string `json:"database,omitempty"`
	Error    string `json:"error,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// healthCheck pings the database for /healthz, at most once per healthFresh, and lets concurrent
// probes share the ping in flight.
type healthCheck struct {
	store *store.Store
	now   func() time.Time

	mu       sync.Mutex
	checked  time.Time
	err      error
	inFlight chan struct{}
}

func newHealthCheck(s *store.Store) *healthCheck {
	return &healthCheck{store: s, now: time.Now}
}

// result is the newest ping's outcome, pinging when it is older than healthFresh.
func (h *healthCheck) result(ctx context.Context) error {
	h.mu.Lock()
	if h.err == nil && !h.checked.IsZero() && h.now().Sub(h.checked) < healthFresh {
		h.mu.Unlock()
		return nil
	}
	wait := h.inFlight
	if wait == nil {
		wait = make(chan struct{})
		h.inFlight = wait
		go h.ping(wait)
	}
	h.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// ping runs on its own, so a probe that gives up does not cancel the one the others wait for.
func (h *healthCheck) ping(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	err := h.store.Ping(ctx)
	cancel()
	h.mu.Lock()
	h.err, h.checked, h.inFlight = err, h.now(), nil
	h.mu.Unlock()
	close(done)
}

// handleHealth is GET /healthz: ok only when the database answered within a short timeout (at
// most a second ago), so a load balancer stops sending agents to a gateway that would answer 503.
func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := s.health.result(ctx); err != nil {
		s.log.Warn("health check: database unavailable", "error", err)
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, healthBody{
			Status: "unavailable", Database: "unavailable", Reason: reasonDatabaseUnavailable,
			Error: "the gateway cannot reach its database; check DATABASE_URL and that PostgreSQL is running",
		})
		return
	}
	writeJSON(w, http.StatusOK, healthBody{Status: "ok", Database: "ok"})
}

// handleLive is GET /livez: ok whenever the gateway serves HTTP, whatever the database does, so a
// liveness probe restarts a wedged process but never every gateway during a database outage
// (readiness, /healthz, takes them out of the load balancer instead).
func handleLive(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, healthBody{Status: "ok"})
}
