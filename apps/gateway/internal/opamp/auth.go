package opamp

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	servertypes "github.com/open-telemetry/opamp-go/server/types"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// retryAfterSeconds is what a 503 asks agents to wait (opamp-go honours Retry-After).
const retryAfterSeconds = 5

// onConnecting authenticates every OpAMP request (each plain-HTTP poll, and the WebSocket
// upgrade, which is refused without a valid credential) the way /v1/metrics does, and binds the
// connection to the agent the credential belongs to. Nothing the agent sends can change that.
func (s *Server) onConnecting(r *http.Request) servertypes.ConnectionResponse {
	secret := bearer(r)
	if secret == "" {
		s.settings.Logger.Info("OpAMP connection refused: no credential", "remote", r.RemoteAddr)
		return refuse(http.StatusUnauthorized)
	}
	ctx, cancel := s.dbContext()
	defer cancel()
	agent, err := s.settings.Credentials.Check(ctx, credential.Hash(secret))
	switch {
	case errors.Is(err, store.ErrUnknownCredential), errors.Is(err, store.ErrRevokedCredential):
		s.settings.Logger.Info("OpAMP connection refused", "remote", r.RemoteAddr, "error", err)
		return refuse(http.StatusUnauthorized)
	case err != nil && store.IsUnavailable(err):
		s.settings.Logger.Warn("OpAMP connection refused: database unavailable", "error", err)
		return refuse(http.StatusServiceUnavailable)
	case err != nil:
		s.settings.Logger.Error("OpAMP authentication failed", "error", err)
		return refuse(http.StatusInternalServerError)
	}
	// opamp-go treats a protobuf body as plain HTTP and anything else as a WebSocket upgrade.
	webSocket := r.Header.Get("Content-Type") != "application/x-protobuf"
	if webSocket && s.registry.countAgent(agent.ID) >= s.settings.MaxConnectionsPerAgent {
		s.settings.Logger.Warn("OpAMP connection refused: too many connections for one credential",
			"agent_id", agent.ID, "remote", r.RemoteAddr, "limit", s.settings.MaxConnectionsPerAgent)
		return refuse(http.StatusTooManyRequests)
	}
	c := newAgentConnection(s, agent, webSocket)
	return servertypes.ConnectionResponse{Accept: true, ConnectionCallbacks: servertypes.ConnectionCallbacks{
		OnConnected:        c.onConnected,
		OnMessage:          c.onMessage,
		OnConnectionClose:  c.onClose,
		OnReadMessageError: c.onReadError,
	}}
}

func refuse(status int) servertypes.ConnectionResponse {
	header := map[string]string{}
	switch status {
	case http.StatusUnauthorized:
		// The body cannot carry our JSON error through opamp-go; the header says what to do.
		header["WWW-Authenticate"] = `Bearer realm="spindle", error="invalid_token", error_description="send the agent credential (spa_…); re-enrol the agent if it was revoked or replaced"`
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		header["Retry-After"] = strconv.Itoa(retryAfterSeconds)
	}
	return servertypes.ConnectionResponse{Accept: false, HTTPStatusCode: status, HTTPResponseHeader: header}
}

func bearer(r *http.Request) string {
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(secret)
}
