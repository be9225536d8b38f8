package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// renewResponse is the body of a successful POST /v1/renew.
type renewResponse struct {
	Credential string    `json:"credential"`
	ExpiresAt  time.Time `json:"expiresAt"`
	// SigningPublicKey: as at enrolment, so agents enrolled before upgrades existed learn it.
	SigningPublicKey string `json:"signingPublicKey"`
}

// handleRenew is POST /v1/renew: the holder of a valid agent credential exchanges it for a fresh
// one of full lifetime (docs/agent-protocol.md). The old credential stops working at once.
func (s *server) handleRenew(w http.ResponseWriter, r *http.Request) {
	secret := bearerCredential(r)
	if secret == "" {
		writeError(w, http.StatusUnauthorized, reasonUnauthenticated,
			"send the agent credential to renew as 'Authorization: Bearer spa_…'")
		return
	}
	// Checked in the database, not the cache, so an expired or revoked credential is told why.
	agent, ok := s.admitAgent(w, r, secret, freshCheck)
	if !ok {
		return
	}
	s.inAgentCall(w, r, func() {
		ctx, cancel := context.WithTimeout(r.Context(), enrollTimeout)
		defer cancel()
		renewed, err := s.store.RenewCredential(ctx, agent)
		if err != nil {
			s.writeAuthError(w, r, err)
			return
		}
		s.renewed(w, secret, agent, renewed)
	})
}

func (s *server) renewed(w http.ResponseWriter, secret string, agent store.Agent, renewed store.Renewed) {
	s.credentials.Forget(credential.Hash(secret))
	s.log.Info("agent credential renewed", "org_id", agent.OrgID, "server_id", agent.ServerID, "agent_id", agent.ID,
		"expires_at", renewed.ExpiresAt)
	writeJSON(w, http.StatusOK, renewResponse{Credential: renewed.Credential, ExpiresAt: renewed.ExpiresAt, SigningPublicKey: s.signingKey.PublicKeyPEM()})
}
