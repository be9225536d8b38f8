package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Batched OpAMP writes under the gateway's role: a seen time never moves backwards (a batch
// retried after a newer one changes nothing), an APPLIED merged with a later FAILED still moves
// applied_hash, and an update naming another organisation's agent under this one's scope
// writes nothing.
func TestRecordAgentUpdatesKeepsOrderAndTenants(t *testing.T) {
	ctx := context.Background()
	s, admin := openStoreAsGatewayLogin(t)
	for _, org := range []string{"org-a", "org-b"} {
		if _, err := admin.Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, org); err != nil {
			t.Fatal(err)
		}
	}
	a := enrolAs(t, s, admin, "org-a", "machine-a")
	b := enrolAs(t, s, admin, "org-b", "machine-b")
	seenOf := func(agent Agent) (opamp, server *time.Time) {
		t.Helper()
		if err := admin.QueryRow(ctx, `SELECT a.opamp_seen_at, s.last_seen_at FROM agents a JOIN servers s ON s.id = a.server_id
			WHERE a.id = $1`, agent.ID).Scan(&opamp, &server); err != nil {
			t.Fatal(err)
		}
		return opamp, server
	}
	newer := time.Now().Add(time.Hour).Truncate(time.Microsecond)
	older := newer.Add(-time.Minute)
	for _, at := range []time.Time{newer, older} {
		if err := s.RecordAgentReports(ctx, []AgentUpdate{{Agent: a, SeenAt: at}}); err != nil {
			t.Fatal(err)
		}
	}
	if opamp, server := seenOf(a); opamp == nil || server == nil || !opamp.Equal(newer) || !server.Equal(newer) {
		t.Fatalf("seen went to %s / %s after an older batch, want %s", opamp, server, newer)
	}

	applied, failed := strings.Repeat("a", 64), strings.Repeat("f", 64)
	err := s.RecordAgentUpdates(ctx, []AgentUpdate{{Agent: a, SeenAt: newer,
		Report: AgentReport{Health: map[string]any{"healthy": true}},
		Policy: &PolicyUpdate{Latest: PolicyReport{Hash: failed, State: PolicyFailed, Message: "refused"}, AppliedHash: applied}}})
	if err != nil {
		t.Fatal(err)
	}
	var status, appliedHash, reported, message string
	if err := admin.QueryRow(ctx, `SELECT status, applied_hash, reported_hash, message FROM server_policy_status WHERE server_id = $1`,
		a.ServerID).Scan(&status, &appliedHash, &reported, &message); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || appliedHash != applied || reported != failed || message != "refused" {
		t.Fatalf("policy status %s applied=%s reported=%s message=%q", status, appliedHash, reported, message)
	}

	forged := b
	forged.OrgID = "org-a" // the batch is scoped to org-a; org-b's rows must stay untouched
	before, _ := seenOf(b)
	if err := s.RecordAgentReports(ctx, []AgentUpdate{{Agent: forged, SeenAt: newer}}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordAgentUpdates(ctx, []AgentUpdate{{Agent: forged, SeenAt: newer,
		Policy: &PolicyUpdate{Latest: PolicyReport{Hash: applied, State: PolicyApplied}, AppliedHash: applied}}}); err == nil {
		if after, _ := seenOf(b); (after == nil) != (before == nil) || (after != nil && !after.Equal(*before)) {
			t.Fatal("an update scoped to org-a changed org-b's agent")
		}
	}
	if n := adminCount(t, admin, `SELECT count(*) FROM server_policy_status WHERE server_id = $1`, b.ServerID); n != 0 {
		t.Fatal("an update scoped to org-a wrote org-b's policy status")
	}
}
