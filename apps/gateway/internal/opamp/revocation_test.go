package opamp

import (
	"context"
	"testing"
	"time"
)

// Access ends in the database, by whoever ends it (the console, an operator's SQL, a re-enrolment
// taking the identity over, an organisation deleted with its agents), and the database announces
// it (migration 20261124170000_agent_access_revoked_trigger): the open WebSocket closes at once.
// The credential cache here trusts a check for an hour and the agent sends nothing after
// connecting, so only the announcement can close it.
func TestRevocationClosesTheWebSocketAtOnce(t *testing.T) {
	for _, change := range []struct {
		name string
		sql  []string
	}{
		{"revoked", []string{`UPDATE agents SET revoked_at = now() WHERE server_id = $1`}},
		// The agent row first, as the console does: the gateway locks agents before servers.
		{"server removed", []string{`DELETE FROM agents WHERE server_id = $1`, `DELETE FROM servers WHERE id = $1`}},
		{"identity taken over by a re-enrolment", []string{
			`UPDATE agents SET credential_hash = sha256(random()::text::bytea), enrolled_at = now() + interval '1 second' WHERE server_id = $1`}},
		{"organisation deleted", []string{`DELETE FROM organizations WHERE id = (SELECT org_id FROM servers WHERE id = $1)`}},
	} {
		t.Run(change.name, func(t *testing.T) {
			h := newHarnessWithCredentialTTL(t, time.Hour)
			h.startAgent(agentOptions{transport: "websocket", secret: h.secret})
			h.waitConnected(1)
			h.inOneTransaction(change.sql...)
			h.waitConnected(0)
		})
	}
}

// The notification only wakes the gateway; the database decides. A notification about an
// agent whose credential is still valid (sent by mistake, or by anyone who can NOTIFY) closes
// nothing.
func TestRevocationNotificationForAValidCredentialClosesNothing(t *testing.T) {
	h := newHarnessWithCredentialTTL(t, time.Hour)
	agent := h.startAgent(agentOptions{transport: "websocket", secret: h.secret})
	h.waitConnected(1)
	h.inOneTransaction(`SELECT pg_notify('` + AgentAccessRevokedChannel + `', json_build_object('agentId', id, 'serverId', server_id)::text) FROM agents WHERE server_id = $1`)
	// A policy set afterwards still reaches the agent over the same connection: had the
	// notification closed it, the agent would have to reconnect first and the count would dip.
	document, hash := h.setPolicy(40)
	agent.expectConfig(t, document, hash)
	if n := h.server.ConnectedAgents(); n != 1 {
		t.Fatalf("%d connections after a notification for a valid credential, want 1", n)
	}
}

// inOneTransaction runs the statements, each with the server id as $1, in one transaction.
func (h *harness) inOneTransaction(statements ...string) {
	h.t.Helper()
	ctx := context.Background()
	tx, err := h.db.Begin(ctx)
	must(h.t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	for _, statement := range statements {
		_, err = tx.Exec(ctx, statement, h.serverID)
		must(h.t, err)
	}
	must(h.t, tx.Commit(ctx))
}

// waitConnected waits until n WebSockets are registered; it fails after a generous bound only
// so a broken build does not hang.
func (h *harness) waitConnected(n int) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for h.server.ConnectedAgents() != n {
		if time.Now().After(deadline) {
			h.t.Fatalf("%d WebSocket connection(s), want %d", h.server.ConnectedAgents(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
