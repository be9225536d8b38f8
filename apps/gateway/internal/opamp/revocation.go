package opamp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// AgentAccessRevokedChannel is NOTIFYed by the database (triggers on agents, migration
// 20261124170000_agent_access_revoked_trigger) in the transaction that revokes an agent, hands
// its identity to a re-enrolment or deletes it, with {"agentId": …, "serverId": …}. Every
// gateway closes that agent's WebSockets at once instead of at its next message or when the
// cached credential expires. The notification is only a wake-up: the database decides.
const AgentAccessRevokedChannel = "spindle_agent_access_revoked"

type accessRevoked struct {
	AgentID  string `json:"agentId"`
	ServerID string `json:"serverId"`
}

// onAccessRevoked forgets the agent's cached credential and re-checks each of its connections.
func (s *Server) onAccessRevoked(payload string) {
	var revoked accessRevoked
	if err := json.Unmarshal([]byte(payload), &revoked); err != nil || revoked.AgentID == "" || revoked.ServerID == "" {
		s.settings.Logger.Warn("ignored a malformed access-revoked notification", "payload", payload)
		return
	}
	s.settings.Credentials.ForgetAgent(revoked.AgentID)
	for _, c := range s.registry.of(revoked.ServerID) {
		if c.agent.ID == revoked.AgentID {
			go c.closeUnlessAuthorised()
		}
	}
}

// closeUnlessAuthorised checks the connection's credential against the database and closes the
// WebSocket when it is revoked or gone; closed says so. A database error keeps the connection:
// the next message checks again.
func (c *agentConnection) closeUnlessAuthorised() (closed bool) {
	ctx, cancel := c.server.dbContext()
	defer cancel()
	c.server.settings.Credentials.Forget(c.agent.CredentialHash)
	_, err := c.server.settings.Credentials.Check(ctx, c.agent.CredentialHash)
	if err == nil {
		return false
	}
	if !errors.Is(err, store.ErrUnknownCredential) && !errors.Is(err, store.ErrRevokedCredential) {
		c.log.Warn("could not re-check the credential of an OpAMP connection", "error", err)
		return false
	}
	c.disconnect("OpAMP connection closed: credential revoked", err)
	return true
}

// disconnect closes the WebSocket, saying why in the log.
func (c *agentConnection) disconnect(why string, err error) {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		c.log.Info(why, "error", err)
		_ = conn.Disconnect()
	}
}

// resync catches up, after the LISTEN connection was (re)established, on what may have been
// announced while it was down: revoked credentials (one sweep), then changed policies (one
// fan-out over every connected server).
func (s *Server) resync(ctx context.Context) {
	s.sweepCredentials(ctx)
	s.fanout.add(s.registry.servers()...)
	s.upgrades.add(s.registry.servers()...)
}
