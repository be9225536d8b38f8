package opamp

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The console revokes a credential (or removes the server) and NOTIFYs in the same
// transaction: the open WebSocket closes at once. The credential cache here trusts a check for
// an hour and the agent sends nothing after connecting, so only the notification can close it.
func TestRevocationClosesTheWebSocketAtOnce(t *testing.T) {
	for _, change := range []struct {
		name string
		sql  []string
	}{
		{"revoked", []string{`UPDATE agents SET revoked_at = now() WHERE server_id = $1`}},
		// The agent row first, as the console does: the gateway locks agents before servers.
		{"server removed", []string{`DELETE FROM agents WHERE server_id = $1`, `DELETE FROM servers WHERE id = $1`}},
	} {
		t.Run(change.name, func(t *testing.T) {
			h := newHarnessWithCredentialTTL(t, time.Hour)
			h.startAgent(agentOptions{transport: "websocket", secret: h.secret})
			h.waitConnected(1)
			h.announceRevocation(change.sql...)
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
	h.announceRevocation(`SELECT $1::uuid`) // no change
	// A policy set afterwards still reaches the agent over the same connection: had the
	// notification closed it, the agent would have to reconnect first and the count would dip.
	document, hash := h.setPolicy(40)
	agent.expectConfig(t, document, hash)
	if n := h.server.ConnectedAgents(); n != 1 {
		t.Fatalf("%d connections after a notification for a valid credential, want 1", n)
	}
}

// announceRevocation runs the changes (with the server id as $1) and the console's NOTIFY in one
// transaction, as apps/console/modules/fleet/lib/server-lifecycle.ts does.
func (h *harness) announceRevocation(changes ...string) {
	h.t.Helper()
	ctx := context.Background()
	var agentID string
	if err := h.db.QueryRow(ctx, `SELECT id::text FROM agents WHERE server_id = $1`, h.serverID).Scan(&agentID); err != nil {
		h.t.Fatal(err)
	}
	tx, err := h.db.Begin(ctx)
	must(h.t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	for _, change := range changes {
		_, err = tx.Exec(ctx, change, h.serverID)
		must(h.t, err)
	}
	_, err = tx.Exec(ctx, `SELECT pg_notify($1, json_build_object('agentId', $2::text, 'serverId', $3::text)::text)`,
		AgentAccessRevokedChannel, agentID, h.serverID)
	must(h.t, err)
	must(h.t, tx.Commit(ctx))
}

// waitConnected waits until n WebSockets are registered; it fails after a generous bound only
// so a broken build does not hang.
func (h *harness) waitConnected(n int) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for h.server.ConnectedAgents() != n {
		if time.Now().After(deadline) {
			h.t.Fatal(fmt.Sprintf("%d WebSocket connection(s), want %d", h.server.ConnectedAgents(), n))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
