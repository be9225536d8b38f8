// Package httpapi is the gateway's HTTP surface (docs/agent-protocol.md): OTLP ingest,
// enrolment, health, the installer and agent downloads. Handlers validate, call the store and
// answer; every error is application/json {"error": "...what to do...", "reason": "..."}.
package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Reasons are part of the wire contract: agents act on them.
const (
	reasonMalformed            = "malformed"
	reasonUnauthenticated      = "unauthenticated"
	reasonInvalidToken         = "invalid_token"
	reasonTooLarge             = "too_large"
	reasonOutOfBounds          = "out_of_bounds" // timestamps outside the window, too many timestamps or devices
	reasonUnsupportedMediaType = "unsupported_media_type"
	reasonOverloaded           = "overloaded"
	reasonDatabaseUnavailable  = "database_unavailable"
	reasonNotFound             = "not_found"
	reasonMethodNotAllowed     = "method_not_allowed"
	reasonInternal             = "internal"
	reasonServerRevoked        = "server_revoked"
	reasonIdentityTaken        = "identity_taken"
	reasonCredentialExpired    = "credential_expired"
)

// retryAfterSeconds is what 429 and 503 ask agents to wait (they add jitter).
const retryAfterSeconds = 5

type errorBody struct {
	Error  string `json:"error"`
	Reason string `json:"reason"`
}

func writeError(w http.ResponseWriter, status int, reason, message string) {
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	writeJSON(w, status, errorBody{Error: message, Reason: reason})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeDatabaseUnavailable(w http.ResponseWriter) {
	writeError(w, http.StatusServiceUnavailable, reasonDatabaseUnavailable,
		"the gateway cannot reach its database right now; keep the batch and retry after a backoff")
}

func writeInternal(w http.ResponseWriter) {
	writeError(w, http.StatusInternalServerError, reasonInternal,
		"the gateway failed unexpectedly; keep the batch and retry later (the gateway log has the details)")
}
