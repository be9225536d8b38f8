package httpapi

import (
	"context"
	"net/http"
	"time"
)

const healthTimeout = 2 * time.Second

type healthBody struct {
	Status   string `json:"status"`
	Database string `json:"database,omitempty"`
	Error    string `json:"error,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// handleHealth is GET /healthz: ok only when the database answers within a short timeout, so a
// load balancer stops sending agents to a gateway that would answer 503 anyway.
func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
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
