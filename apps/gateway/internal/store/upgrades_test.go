package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/testdb"
)

// An attempt as the worker makes it live; returns its id.
func liveAttempt(t *testing.T, admin *pgxpool.Pool, agent Agent, version string) string {
	t.Helper()
	var id string
	err := admin.QueryRow(context.Background(), `
		INSERT INTO agent_upgrades (org_id, server_id, target_version, from_version, state, offered_at)
		VALUES ($1, $2, $3, '0.1.0', 'offered', now()) RETURNING id::text`, agent.OrgID, agent.ServerID, version).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func attemptState(t *testing.T, admin *pgxpool.Pool, id string) (state, message string, finished bool) {
	t.Helper()
	var at *time.Time
	if err := admin.QueryRow(context.Background(), `SELECT state, message, finished_at FROM agent_upgrades WHERE id = $1`, id).Scan(&state, &message, &at); err != nil {
		t.Fatal(err)
	}
	return state, message, at != nil
}

func TestUpgradeReportsMoveTheLiveAttemptForwardOnly(t *testing.T) {
	s, admin := openStoreAsGatewayLogin(t)
	ctx := context.Background()
	testdb.Org(t, admin, "org-a")
	agent := enrolAs(t, s, admin, "org-a", "machine-a")
	id := liveAttempt(t, admin, agent, "0.1.1")
	hash := strings.Repeat("ab", 32)

	live, err := s.LiveUpgrades(ctx, "org-a", []string{agent.ServerID})
	if err != nil || live[agent.ServerID].ID != id || live[agent.ServerID].OS != "linux" || live[agent.ServerID].AgentVersion != "0.1.0" {
		t.Fatalf("live %+v, %v", live, err)
	}
	if err := s.RecordUpgradeOffered(ctx, "org-a", id, hash); err != nil {
		t.Fatal(err)
	}
	report := func(state, message, version string) string {
		got, err := s.RecordUpgradeReport(ctx, agent, UpgradeReport{OfferHash: hash, State: state, Message: message, AgentVersion: version, ReportedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := report("installing", "", "0.1.0"); got != "installing" {
		t.Fatalf("installing recorded as %q", got)
	}
	if got := report("downloading", "", "0.1.0"); got != "" {
		t.Fatalf("a late downloading moved the attempt back: %q", got)
	}
	if got := report("rolled_back", "rolled back to 0.1.0: 0.1.1 stopped", "0.1.0"); got != "rolled_back" {
		t.Fatalf("rollback recorded as %q", got)
	}
	if state, message, finished := attemptState(t, admin, id); state != "rolled_back" || message != "rolled back to 0.1.0: 0.1.1 stopped" || !finished {
		t.Fatalf("row %s %q finished=%v", state, message, finished)
	}
	if got := report("installed", "", "0.1.1"); got != "" {
		t.Fatal("a finished attempt was moved again")
	}
	if live, _ := s.LiveUpgrades(ctx, "org-a", []string{agent.ServerID}); len(live) != 0 {
		t.Fatalf("a rolled-back attempt is still offered: %+v", live)
	}
}

func TestAnInstalledReportFromTheWrongVersionIsAFailure(t *testing.T) {
	s, admin := openStoreAsGatewayLogin(t)
	testdb.Org(t, admin, "org-a")
	agent := enrolAs(t, s, admin, "org-a", "machine-a")
	id := liveAttempt(t, admin, agent, "0.1.1")
	hash := strings.Repeat("cd", 32)
	if err := s.RecordUpgradeOffered(context.Background(), "org-a", id, hash); err != nil {
		t.Fatal(err)
	}
	got, err := s.RecordUpgradeReport(context.Background(), agent, UpgradeReport{OfferHash: hash, State: "installed", AgentVersion: "0.1.0", ReportedAt: time.Now()})
	if err != nil || got != "failed" {
		t.Fatalf("%q %v", got, err)
	}
	if _, message, _ := attemptState(t, admin, id); message != "the agent reported the upgrade installed but runs 0.1.0, not 0.1.1" {
		t.Fatalf("message %q", message)
	}
}

func TestUpgradesStayInsideTheirOrganisation(t *testing.T) {
	s, admin := openStoreAsGatewayLogin(t)
	ctx := context.Background()
	testdb.Org(t, admin, "org-a")
	testdb.Org(t, admin, "org-b")
	a := enrolAs(t, s, admin, "org-a", "machine-a")
	b := enrolAs(t, s, admin, "org-b", "machine-b")
	idB := liveAttempt(t, admin, b, "0.1.1")
	hash := strings.Repeat("ef", 32)
	if err := s.RecordUpgradeOffered(ctx, "org-b", idB, hash); err != nil {
		t.Fatal(err)
	}
	// org-a's agent names org-b's attempt, and reads org-b's server: nothing.
	if live, err := s.LiveUpgrades(ctx, "org-a", []string{b.ServerID}); err != nil || len(live) != 0 {
		t.Fatalf("org-a read org-b's attempt: %+v %v", live, err)
	}
	forged := a
	forged.ServerID = b.ServerID
	if got, _ := s.RecordUpgradeReport(ctx, forged, UpgradeReport{OfferHash: hash, State: "failed", Message: "x", ReportedAt: time.Now()}); got != "" {
		t.Fatal("an agent of org-a moved org-b's attempt")
	}
	if err := s.RecordUpgradeOffered(ctx, "org-a", idB, strings.Repeat("00", 32)); err != nil {
		t.Fatal(err)
	}
	if state, _, _ := attemptState(t, admin, idB); state != "offered" {
		t.Fatalf("org-b's attempt is %s", state)
	}
	var offer string
	_ = admin.QueryRow(ctx, `SELECT offer_hash FROM agent_upgrades WHERE id = $1`, idB).Scan(&offer)
	if offer != hash {
		t.Fatal("org-a rewrote org-b's offer hash")
	}
	// The gateway never plans: it cannot create attempts or read rollouts and pins.
	for _, sql := range []string{
		`INSERT INTO agent_upgrades (org_id, server_id, target_version) VALUES ('org-a', '` + a.ServerID + `', '0.1.1')`,
		`SELECT count(*) FROM agent_upgrade_rollouts`,
		`SELECT count(*) FROM agent_version_pins`,
	} {
		err := s.inOrg(ctx, "org-a", func(tx pgx.Tx) error { _, err := tx.Exec(ctx, sql); return err })
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("%s as spindle_gateway: %v, want permission denied", sql, err)
		}
	}
}

func TestRecordReleasesAsTheGatewayRole(t *testing.T) {
	s, admin := openStoreAsGatewayLogin(t)
	ctx := context.Background()
	files := []ReleaseFile{{OS: "linux", Arch: "amd64", Name: "spindle-agent-linux-amd64", SHA256: strings.Repeat("1", 64), Size: 9}}
	for range 2 {
		if err := s.RecordReleases(ctx, []ReleaseRecord{{Version: "0.1.1", Files: files}, {Version: "0.1.2-rc.1"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := adminCount(t, admin, `SELECT count(*) FROM agent_releases WHERE files @> '[{"name": "spindle-agent-linux-amd64"}]' OR version = '0.1.2-rc.1'`); n != 2 {
		t.Fatalf("%d releases recorded", n)
	}
	if err := s.RecordReleases(ctx, []ReleaseRecord{{Version: "../1.2.3"}}); err == nil {
		t.Fatal("a release named like a path was recorded")
	}
}
