package store

// The gateway as production runs it: its login role is granted spindle_gateway and nothing else
// (docs/configure.md), so row-level security applies to every statement. Each Store method must
// work under it (enrolment, COPY into the view-walled telemetry tables, OpAMP status, proof runs,
// renewal, the silent-run sweep), and a statement that forgets its organisation filter still sees
// only the organisation its transaction is scoped to. The other tests connect as the superuser,
// which row-level security does not apply to, so they cannot tell.

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/internal/testdb"
)

// gatewayLogin is the login the migrations create for the gateway and the deployments use
// (migration 20261128150100_service_logins): it holds only spindle_gateway.
const gatewayLogin = "spindle_gateway_login"

// openStoreAsGatewayLogin returns a Store connected as the gateway's shipped login, and a
// superuser pool for fixtures and checks.
func openStoreAsGatewayLogin(t *testing.T) (*Store, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	adminURL := testdb.New(t)
	admin, err := pgxpool.New(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	// Roles are cluster-wide and the test cluster trusts local logins, as a password would here.
	if adminCount(t, admin, `SELECT count(*) FROM pg_roles WHERE rolname = $1`, gatewayLogin) != 1 {
		t.Fatalf("there is no %s: migration 20261128150100_service_logins creates it; restart scripts/test-db.sh", gatewayLogin)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(gatewayLogin)
	s, err := Open(ctx, u.String(), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, admin
}

func adminCount(t *testing.T, admin *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := admin.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func enrolAs(t *testing.T, s *Store, admin *pgxpool.Pool, orgID, machineID string) Agent {
	t.Helper()
	token, _ := testdb.EnrollmentToken(t, admin, orgID, testdb.TokenValid)
	enrolled, err := s.Enroll(context.Background(), Enrollment{
		TokenHash: credential.Hash(token), MachineID: machineID, Hostname: machineID, OS: "linux", Arch: "amd64", AgentVersion: "0.1.0",
	})
	if err != nil {
		t.Fatalf("enrol %s as spindle_gateway: %v", machineID, err)
	}
	agent, err := s.AuthenticateAgent(context.Background(), credential.Hash(enrolled.Credential))
	if err != nil {
		t.Fatal(err)
	}
	return agent
}

func TestEveryStoreMethodWorksUnderTheGatewayRole(t *testing.T) {
	ctx := context.Background()
	s, admin := openStoreAsGatewayLogin(t)
	testdb.Org(t, admin, "org-a")
	testdb.Org(t, admin, "org-b")
	a := enrolAs(t, s, admin, "org-a", "machine-a")
	b := enrolAs(t, s, admin, "org-b", "machine-b")

	// COPY into raw telemetry, which has no RLS (COPY refuses it) and is walled by views instead.
	if _, err := s.WriteBatches(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	written, err := s.WriteBatches(ctx, a, []telemetry.Batch{diskBatch(1, time.Now().Add(-time.Minute), 10)})
	if err != nil {
		t.Fatalf("write telemetry as spindle_gateway: %v", err)
	}
	if written.DiskIORows != 1 || adminCount(t, admin, `SELECT count(*) FROM disk_io WHERE org_id = 'org-a'`) != 1 {
		t.Fatalf("disk_io rows not written: %+v", written)
	}

	if _, err := admin.Exec(ctx, `INSERT INTO server_effective_policies (org_id, server_id, document, hash)
		VALUES ('org-a', $1, '{"schemaVersion": 1}', repeat('a', 64)), ('org-b', $2, '{"schemaVersion": 1}', repeat('b', 64))`,
		a.ServerID, b.ServerID); err != nil {
		t.Fatal(err)
	}
	policy, err := s.EffectivePolicy(ctx, a)
	if err != nil || policy.Hash != strings.Repeat("a", 64) {
		t.Fatalf("effective policy under the role: %+v, %v", policy, err)
	}
	if err := s.RecordPolicySent(ctx, a, policy.Hash); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordAgentUpdates(ctx, []AgentUpdate{{Agent: a, SeenAt: time.Now(),
		Report: AgentReport{Capabilities: map[string]any{"ebpf": true}},
		Policy: &PolicyUpdate{Latest: PolicyReport{Hash: policy.Hash, State: PolicyApplied}, AppliedHash: policy.Hash}}}); err != nil {
		t.Fatal(err)
	}
	targets, err := s.PolicyTargets(ctx, "org-a", []string{a.ServerID, b.ServerID})
	if err != nil || len(targets) != 1 || targets[a.ServerID].ReportedHash != policy.Hash {
		t.Fatalf("policy targets under the role (org-b's server must stay hidden): %+v, %v", targets, err)
	}
	if err := s.RecordPoliciesSent(ctx, "org-a", map[string]string{a.ServerID: policy.Hash}); err != nil {
		t.Fatal(err)
	}
	if checks, err := s.AuthenticateAgents(ctx, [][]byte{a.CredentialHash, b.CredentialHash}); err != nil ||
		checks[string(a.CredentialHash)].Agent.ID != a.ID || checks[string(b.CredentialHash)].Agent.OrgID != "org-b" {
		t.Fatalf("batch credential check under the role: %+v, %v", checks, err)
	}
	if reported, err := s.ReportedPolicyHash(ctx, a); err != nil || reported != policy.Hash {
		t.Fatalf("reported hash under the role: %q, %v", reported, err)
	}
	if err := s.RecordBenchProfiles(ctx, a, json.RawMessage(`[]`), json.RawMessage(`[]`)); err != nil {
		t.Fatal(err)
	}
	if n := adminCount(t, admin, `SELECT count(*) FROM agents WHERE id = $1 AND opamp_seen_at IS NOT NULL
		AND capabilities ? 'bench' AND capabilities ? 'ebpf'`, a.ID); n != 1 {
		t.Fatal("the agent report and bench profiles were not stored")
	}
	if n := adminCount(t, admin, `SELECT count(*) FROM server_policy_status WHERE server_id = $1 AND status = 'applied'`, a.ServerID); n != 1 {
		t.Fatal("the policy report was not stored")
	}

	// Proof runs: take, report progress, finish; then the sweep across both organisations.
	if _, err := admin.Exec(ctx, `INSERT INTO benchmark_runs (org_id, server_id, profile, parameters) VALUES ('org-a', $1, 'sqlio', '{}')`, a.ServerID); err != nil {
		t.Fatal(err)
	}
	command, err := s.NextBenchCommand(ctx, a, "")
	if err != nil || command.Start == nil {
		t.Fatalf("take the queued run under the role: %+v, %v", command, err)
	}
	if _, err := s.RecordBenchProgress(ctx, a, command.Start.RunID, 0.5, "step 1"); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishBenchRun(ctx, a, command.Start.RunID, BenchOutcome{Status: "failed", Error: "stopped by the test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `INSERT INTO benchmark_runs (org_id, server_id, profile, parameters, status, heartbeat_at)
		VALUES ('org-a', $1, 'sqlio', '{}', 'running', now() - interval '1 hour'),
		       ('org-b', $2, 'sqlio', '{}', 'running', now() - interval '1 hour')`, a.ServerID, b.ServerID); err != nil {
		t.Fatal(err)
	}
	if failed, err := s.FailSilentBenchRuns(ctx, time.Minute); err != nil || failed != 2 {
		t.Fatalf("the sweep failed %d silent runs (%v), want both organisations' 2", failed, err)
	}

	renewed, err := s.RenewCredential(ctx, a)
	if err != nil || renewed.Credential == "" {
		t.Fatalf("renew under the role: %v", err)
	}
}

func TestAStatementWithoutItsOrgFilterSeesOnlyTheScopedOrganisation(t *testing.T) {
	ctx := context.Background()
	s, admin := openStoreAsGatewayLogin(t)
	testdb.Org(t, admin, "org-a")
	testdb.Org(t, admin, "org-b")
	enrolAs(t, s, admin, "org-a", "machine-a")
	enrolAs(t, s, admin, "org-b", "machine-b")

	for _, table := range []string{"servers", "agents", "enrollment_tokens", "audit_log"} {
		var orgs []string
		err := s.inOrg(ctx, "org-b", func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT DISTINCT org_id FROM `+table)
			if err != nil {
				return err
			}
			orgs, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		if err != nil || len(orgs) != 1 || orgs[0] != "org-b" {
			t.Errorf("%s scoped to org-b shows %v (%v), want only org-b", table, orgs, err)
		}
	}
	// Outside a scoped transaction the login sees no tenant row at all.
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM agents`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("an unscoped statement saw %d agents (%v), want 0", n, err)
	}
}

// The gateway's first lookups, before it knows the organisation (an enrolment token by its
// secret, an agent by its credential), run on the shipped login's connection, which row-level
// security holds: it is no superuser, has no BYPASSRLS, owns no table, and sees no tenant row
// outside a scoped transaction. They reach their one row through the security-definer functions
// of 20261123130000_tenant_security, nothing else. Issue 25, M4.
func TestFirstLookupsRunOnALoginRowLevelSecurityHolds(t *testing.T) {
	ctx := context.Background()
	s, admin := openStoreAsGatewayLogin(t)
	testdb.Org(t, admin, "org-first")
	agent := enrolAs(t, s, admin, "org-first", "first-lookup-host") // token lookup, then credential lookup
	if _, err := s.AuthenticateAgent(ctx, agent.CredentialHash); err != nil {
		t.Fatalf("the credential lookup as %s: %v", gatewayLogin, err)
	}
	var login string
	var superuser, bypass, rls bool
	var servers, agents, owned int
	err := s.pool.QueryRow(ctx, `SELECT current_user, r.rolsuper, r.rolbypassrls, row_security_active('agents'),
		(SELECT count(*) FROM servers), (SELECT count(*) FROM agents),
		(SELECT count(*) FROM pg_class WHERE relowner = r.oid)
		FROM pg_roles r WHERE r.rolname = current_user`).Scan(&login, &superuser, &bypass, &rls, &servers, &agents, &owned)
	if err != nil {
		t.Fatal(err)
	}
	if login != gatewayLogin || superuser || bypass || !rls || servers != 0 || agents != 0 || owned != 0 {
		t.Fatalf("the lookups' connection: login %s, superuser %v, bypassrls %v, rls active %v, servers seen %d, agents seen %d, tables owned %d",
			login, superuser, bypass, rls, servers, agents, owned)
	}
	if adminCount(t, admin, `SELECT count(*) FROM agents WHERE org_id = 'org-first'`) != 1 {
		t.Fatal("the agent the lookups found is not in the database")
	}
}

// The gateway's login records its signing key for the console (migration
// 20261128150200_gateway_signing_keys): once per key, seen again on every start.
func TestTheGatewayRecordsItsSigningKey(t *testing.T) {
	ctx := context.Background()
	s, admin := openStoreAsGatewayLogin(t)
	point := append([]byte{4}, make([]byte, 64)...)
	point[1] = 7
	for range 2 {
		if err := s.RecordSigningKey(ctx, point); err != nil {
			t.Fatal(err)
		}
	}
	if n := adminCount(t, admin, `SELECT count(*) FROM gateway_signing_keys WHERE algorithm = 'ecdsa-p256' AND public_key = $1`, point); n != 1 {
		t.Fatalf("%d rows for the key, want 1", n)
	}
	if err := s.RecordSigningKey(ctx, point[:33]); err == nil {
		t.Fatal("a point of the wrong length was recorded")
	}
}
