package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

func TestEnrollCreatesServerAgentAndAuditEntry(t *testing.T) {
	g := newGateway(t)
	token, tokenID := testdb.EnrollmentToken(t, g.db, "org-a", testdb.TokenValid)
	resp := g.postJSON(t, "/v1/enroll", enrollBody(token, "machine-a"))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	var agent enrolledAgent
	decodeJSON(t, resp, &agent)
	if agent.OrgID != "org-a" || agent.BatchHWM != 0 || !strings.HasPrefix(agent.Credential, "spa_") || agent.AgentID == "" || agent.ServerID == "" {
		t.Fatalf("response = %+v", agent)
	}

	var hostname, osName, osVersion, kernel, arch, version, machineID string
	if err := g.db.QueryRow(context.Background(), `SELECT hostname, os, os_version, kernel, arch, agent_version, machine_id
		FROM servers WHERE id = $1 AND org_id = 'org-a'`, agent.ServerID).
		Scan(&hostname, &osName, &osVersion, &kernel, &arch, &version, &machineID); err != nil {
		t.Fatal(err)
	}
	if hostname != "db01" || osName != "linux" || osVersion != "Debian GNU/Linux 12 (bookworm)" || kernel != "6.1.0-18-amd64" ||
		arch != "amd64" || version != "0.1.0" || machineID != "machine-a" {
		t.Fatalf("server row: %s %s %s %s %s %s %s", hostname, osName, osVersion, kernel, arch, version, machineID)
	}
	if n := g.count(t, `SELECT count(*) FROM agents WHERE id = $1 AND credential_hash = sha256(convert_to($2, 'UTF8'))
		AND enrollment_token_id = $3`, agent.AgentID, agent.Credential, tokenID); n != 1 {
		t.Fatal("the agent row does not hold the SHA-256 of the returned credential")
	}
	if n := g.count(t, `SELECT uses FROM enrollment_tokens WHERE id = $1 AND last_used_at IS NOT NULL`, tokenID); n != 1 {
		t.Fatalf("token uses = %d, want 1", n)
	}
	if n := g.count(t, `SELECT count(*) FROM audit_log WHERE org_id = 'org-a' AND action = 'agent.enrolled'
		AND target = $1 AND details->>'agentId' = $2 AND details->>'hostname' = 'db01'`, agent.ServerID, agent.AgentID); n != 1 {
		t.Fatal("no audit entry for the enrolment")
	}
	// The credential works right away.
	if resp := g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("export with the new credential: %d", resp.StatusCode)
	}
}

func TestEnrollRefusesUnusableTokens(t *testing.T) {
	g := newGateway(t)
	expired, _ := testdb.EnrollmentToken(t, g.db, "org-a", testdb.TokenExpired)
	revoked, _ := testdb.EnrollmentToken(t, g.db, "org-a", testdb.TokenRevoked)
	for name, tt := range map[string]struct{ token, want string }{
		"expired":      {expired, "expired"},
		"revoked":      {revoked, "revoked"},
		"unknown":      {"spe_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "unknown"},
		"not a token":  {"hunter2-hunter2-hunter2", "not an enrolment token"},
		"a credential": {"spa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "not an enrolment token"},
	} {
		t.Run(name, func(t *testing.T) {
			message := expectError(t, g.postJSON(t, "/v1/enroll", enrollBody(tt.token, "machine-a")), http.StatusUnauthorized, reasonInvalidToken)
			if !strings.Contains(message, tt.want) {
				t.Fatalf("message %q does not contain %q", message, tt.want)
			}
		})
	}
	if n := g.count(t, `SELECT (SELECT count(*) FROM servers) + (SELECT count(*) FROM agents) + (SELECT count(*) FROM audit_log)`); n != 0 {
		t.Fatalf("refused enrolments left %d rows", n)
	}
}

func TestEnrollRejectsMalformedRequests(t *testing.T) {
	g := newGateway(t)
	token, _ := testdb.EnrollmentToken(t, g.db, "org-a", testdb.TokenValid)
	missing := enrollBody(token, "machine-a")
	delete(missing, "machineId")
	message := expectError(t, g.postJSON(t, "/v1/enroll", missing), http.StatusBadRequest, reasonMalformed)
	if !strings.Contains(message, `"machineId" is missing`) {
		t.Fatalf("message %q does not name the missing field", message)
	}
	badOS := enrollBody(token, "machine-a")
	badOS["os"] = "plan9"
	expectError(t, g.postJSON(t, "/v1/enroll", badOS), http.StatusBadRequest, reasonMalformed)
	long := enrollBody(token, "machine-a")
	long["hostname"] = strings.Repeat("h", 300)
	expectError(t, g.postJSON(t, "/v1/enroll", long), http.StatusBadRequest, reasonMalformed)
	expectError(t, g.post(t, "/v1/enroll", map[string]string{"Content-Type": "application/json"}, []byte(`{"token":`)),
		http.StatusBadRequest, reasonMalformed)
	expectError(t, g.post(t, "/v1/enroll", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, []byte("token=x")),
		http.StatusUnsupportedMediaType, reasonUnsupportedMediaType)
	if n := g.count(t, `SELECT uses FROM enrollment_tokens`); n != 0 {
		t.Fatalf("malformed requests used the token %d times", n)
	}
}

func TestReenrollingRotatesTheCredentialAndKeepsTheServer(t *testing.T) {
	g := newGateway(t)
	first := g.enroll(t, "org-a", "machine-a")
	// The answer says when the credential expires, so the agent renews in time, not at once.
	if left := time.Until(first.ExpiresAt); left < 89*24*time.Hour || left > 91*24*time.Hour {
		t.Fatalf("enrolment answer expires in %v, want the 90-day default", left)
	}
	if resp := g.export(t, first.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1), sample(2)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}

	// A token alone cannot take over the enrolled machine's identity; with its credential it can.
	token, _ := testdb.EnrollmentToken(t, g.db, "org-a", testdb.TokenValid)
	expectError(t, g.postJSON(t, "/v1/enroll", enrollBody(token, "machine-a")), http.StatusConflict, reasonIdentityTaken)
	second := g.reenroll(t, "org-a", "machine-a", first.Credential)
	if second.ServerID != first.ServerID || second.AgentID != first.AgentID || second.Credential == first.Credential {
		t.Fatalf("re-enrolment: first %+v, second %+v", first, second)
	}
	if second.BatchHWM != 2 {
		t.Fatalf("batchHwm = %d, want 2 so the agent numbers on above it", second.BatchHWM)
	}
	expectError(t, g.export(t, first.Credential, otlpfixture.Proto(otlpfixture.Build(sample(3)))), http.StatusUnauthorized, reasonUnauthenticated)
	if resp := g.export(t, second.Credential, otlpfixture.Proto(otlpfixture.Build(sample(3)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("export with the rotated credential: %d", resp.StatusCode)
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE server_id = $1`, first.ServerID); n != 6 {
		t.Fatalf("server has %d rows, want 6 (history kept, 3 samples x 2 devices)", n)
	}
	if n := g.count(t, `SELECT count(*) FROM servers`); n != 1 {
		t.Fatalf("%d servers, want 1", n)
	}
}
