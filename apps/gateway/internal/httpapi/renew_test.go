package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

func TestRenewReplacesTheCredentialAndRevokedOrExpiredAreRefused(t *testing.T) {
	g := newGateway(t)
	first := g.enroll(t, "org-a", "machine-a")

	resp := g.post(t, "/v1/renew", map[string]string{"Authorization": "Bearer " + first.Credential}, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("renew: %d %s", resp.StatusCode, readAll(t, resp))
	}
	var renewed renewResponse
	if err := json.Unmarshal(readAll(t, resp), &renewed); err != nil {
		t.Fatal(err)
	}
	if renewed.Credential == first.Credential || time.Until(renewed.ExpiresAt) < 80*24*time.Hour {
		t.Fatalf("renewed = %+v", renewed)
	}
	expectError(t, g.export(t, first.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1)))), http.StatusUnauthorized, reasonUnauthenticated)
	if resp := g.export(t, renewed.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("export with the renewed credential: %d", resp.StatusCode)
	}
	expectError(t, g.post(t, "/v1/renew", nil, nil), http.StatusUnauthorized, reasonUnauthenticated)

	// Expired: refused with its own reason, and it cannot be renewed.
	if _, err := g.db.Exec(t.Context(), `UPDATE agents SET credential_expires_at = now() - interval '1 minute'`); err != nil {
		t.Fatal(err)
	}
	expectError(t, g.export(t, renewed.Credential, otlpfixture.Proto(otlpfixture.Build(sample(2)))), http.StatusUnauthorized, reasonCredentialExpired)
	expectError(t, g.post(t, "/v1/renew", map[string]string{"Authorization": "Bearer " + renewed.Credential}, nil),
		http.StatusUnauthorized, reasonCredentialExpired)

	// Revoked: re-enrolment with a token and the machine's credential cannot lift it.
	if _, err := g.db.Exec(t.Context(), `UPDATE agents SET revoked_at = now(), credential_expires_at = now() + interval '1 day'`); err != nil {
		t.Fatal(err)
	}
	message := expectError(t, g.export(t, renewed.Credential, otlpfixture.Proto(otlpfixture.Build(sample(3)))), http.StatusUnauthorized, reasonUnauthenticated)
	if message == "" {
		t.Fatal("no message for a revoked credential")
	}
	token, _ := testdb.EnrollmentToken(t, g.db, "org-a", testdb.TokenValid)
	body, _ := json.Marshal(enrollBody(token, "machine-a"))
	expectError(t, g.post(t, "/v1/enroll", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + renewed.Credential}, body),
		http.StatusForbidden, reasonServerRevoked)
}
