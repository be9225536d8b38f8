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

// The policy-status writer stamps applied_at and reported_at with when the gateway received
// the reports, not when a batch wrote them; a repeated APPLIED of the same hash keeps applied_at;
// a report answering a hash sent moves desired_version_hash (a stale one does not); and an
// update naming another organisation's server under this one's scope writes nothing.
func TestRecordPolicyStatusesKeepsArrivalTimes(t *testing.T) {
	ctx := context.Background()
	s, admin := openStoreAsGatewayLogin(t)
	for _, org := range []string{"org-a", "org-b"} {
		if _, err := admin.Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, org); err != nil {
			t.Fatal(err)
		}
	}
	a := enrolAs(t, s, admin, "org-a", "machine-a")
	b := enrolAs(t, s, admin, "org-b", "machine-b")
	type row struct {
		desired, applied, reported, status string
		appliedAt, reportedAt              time.Time
	}
	read := func(serverID string) row {
		t.Helper()
		var r row
		if err := admin.QueryRow(ctx, `SELECT COALESCE(desired_version_hash, ''), COALESCE(applied_hash, ''), reported_hash, status,
			applied_at, reported_at FROM server_policy_status WHERE server_id = $1`, serverID).
			Scan(&r.desired, &r.applied, &r.reported, &r.status, &r.appliedAt, &r.reportedAt); err != nil {
			t.Fatal(err)
		}
		return r
	}
	first, second, stale := strings.Repeat("1", 64), strings.Repeat("2", 64), strings.Repeat("0", 64)
	heard := time.Now().Add(-time.Hour).Truncate(time.Microsecond) // long before this write
	applied := func(hash string, at time.Time, sent string) AgentUpdate {
		return AgentUpdate{Agent: a, Policy: &PolicyUpdate{Latest: PolicyReport{Hash: hash, State: PolicyApplied},
			ReportedAt: at, AppliedHash: hash, AppliedAt: at, Sent: sent}}
	}
	if err := s.RecordPolicyStatuses(ctx, []AgentUpdate{applied(first, heard, first)}); err != nil {
		t.Fatal(err)
	}
	if r := read(a.ServerID); !r.appliedAt.Equal(heard) || !r.reportedAt.Equal(heard) || r.desired != first || r.status != "applied" {
		t.Fatalf("after APPLIED heard at %s: %+v", heard, r)
	}
	again := heard.Add(time.Minute)
	if err := s.RecordPolicyStatuses(ctx, []AgentUpdate{applied(first, again, "")}); err != nil {
		t.Fatal(err)
	}
	if r := read(a.ServerID); !r.appliedAt.Equal(heard) || !r.reportedAt.Equal(again) {
		t.Fatalf("a repeated APPLIED moved applied_at or not reported_at: %+v", r)
	}

	// The gateway sent `second`; the agent refuses it: the row says so against `second`.
	refusedAt := again.Add(time.Minute)
	if err := s.RecordPolicyStatuses(ctx, []AgentUpdate{{Agent: a, Policy: &PolicyUpdate{
		Latest: PolicyReport{Hash: second, State: PolicyFailed, Message: "no"}, ReportedAt: refusedAt, Sent: second}}}); err != nil {
		t.Fatal(err)
	}
	if r := read(a.ServerID); r.desired != second || r.status != "failed" || r.applied != first || !r.appliedAt.Equal(heard) || !r.reportedAt.Equal(refusedAt) {
		t.Fatalf("after FAILED of the hash sent: %+v", r)
	}
	// A report of a hash this gateway did not send (an agent back from elsewhere) keeps desired.
	if err := s.RecordPolicyStatuses(ctx, []AgentUpdate{applied(stale, refusedAt, "")}); err != nil {
		t.Fatal(err)
	}
	if r := read(a.ServerID); r.desired != second || r.applied != stale {
		t.Fatalf("after a report of a hash not sent: %+v", r)
	}

	forged := b
	forged.OrgID = "org-a"
	forgedUpdate := applied(first, heard, first)
	forgedUpdate.Agent = forged
	_ = s.RecordPolicyStatuses(ctx, []AgentUpdate{forgedUpdate}) // refused or writes nothing; either way
	if n := adminCount(t, admin, `SELECT count(*) FROM server_policy_status WHERE server_id = $1`, b.ServerID); n != 0 {
		t.Fatal("an update scoped to org-a wrote org-b's policy status")
	}
}

// A report with news only (no seen time) leaves "last seen" alone.
func TestRecordAgentReportsWithoutSeenTime(t *testing.T) {
	ctx := context.Background()
	s, admin := openStoreAsGatewayLogin(t)
	if _, err := admin.Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ('org-a', 'org-a', 'org-a')`); err != nil {
		t.Fatal(err)
	}
	a := enrolAs(t, s, admin, "org-a", "machine-a")
	if err := s.RecordAgentReports(ctx, []AgentUpdate{{Agent: a, Report: AgentReport{Health: map[string]any{"healthy": true}}}}); err != nil {
		t.Fatal(err)
	}
	var healthy bool
	var opampSeen *time.Time
	if err := admin.QueryRow(ctx, `SELECT (health->>'healthy')::bool, opamp_seen_at FROM agents WHERE id = $1`, a.ID).
		Scan(&healthy, &opampSeen); err != nil {
		t.Fatal(err)
	}
	if !healthy || opampSeen != nil {
		t.Fatalf("healthy %v, opamp_seen_at %v: want the health recorded and no seen time", healthy, opampSeen)
	}
}
