package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

func TestATokenCannotTakeOverAnEnrolledMachine(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	ctx := context.Background()
	first := enrol(t, s, "org-a", "machine-1")

	// Someone holding a token and the machine id, but not the machine's credential.
	if _, err := tryEnrol(t, s, "org-a", "machine-1"); !errors.Is(err, ErrIdentityTaken) {
		t.Fatalf("token-only takeover: err = %v, want ErrIdentityTaken", err)
	}
	if _, err := tryEnrol(t, s, "org-a", "machine-1", "spa_some-other-agents-credential"); !errors.Is(err, ErrIdentityTaken) {
		t.Fatalf("takeover with a wrong credential: err = %v", err)
	}
	authenticate(t, s, first.Credential) // the real agent is untouched

	// An admin allows re-enrolment in the console: one enrolment may take over, then the window closes.
	if _, err := s.pool.Exec(ctx, `UPDATE agents SET reenrollment_allowed_until = now() + interval '1 hour' WHERE id = $1`, first.AgentID); err != nil {
		t.Fatal(err)
	}
	second := enrol(t, s, "org-a", "machine-1")
	if second.ServerID != first.ServerID || !second.Reenrolled {
		t.Fatalf("allowed re-enrolment = %+v", second)
	}
	if _, err := tryEnrol(t, s, "org-a", "machine-1"); !errors.Is(err, ErrIdentityTaken) {
		t.Fatalf("the admin's permission was not spent: err = %v", err)
	}
}

func TestRevokedStaysRevokedThroughReenrolment(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	ctx := context.Background()
	first := enrol(t, s, "org-a", "machine-1")
	if _, err := s.pool.Exec(ctx, `UPDATE agents SET revoked_at = now() WHERE id = $1`, first.AgentID); err != nil {
		t.Fatal(err)
	}
	// Even with its (revoked) credential, a token cannot lift the revocation.
	if _, err := tryEnrol(t, s, "org-a", "machine-1", first.Credential); !errors.Is(err, ErrServerRevoked) {
		t.Fatalf("re-enrolment of a revoked server: err = %v, want ErrServerRevoked", err)
	}
	if n := count(t, s, `SELECT count(*) FROM agents WHERE id = $1 AND revoked_at IS NOT NULL`, first.AgentID); n != 1 {
		t.Fatal("re-enrolment cleared the revocation")
	}
	if _, err := s.AuthenticateAgent(ctx, credential.Hash(first.Credential)); !errors.Is(err, ErrRevokedCredential) {
		t.Fatalf("revoked credential: err = %v", err)
	}
}

func TestCredentialsExpireAndRenew(t *testing.T) {
	s := openTestStore(t)
	if err := s.SetCredentialLifetime(time.Second); err == nil {
		t.Fatal("a one-second lifetime was accepted")
	}
	if err := s.SetCredentialLifetime(48 * time.Hour); err != nil {
		t.Fatal(err)
	}
	testdb.Org(t, s.pool, "org-a")
	ctx := context.Background()
	first := enrol(t, s, "org-a", "machine-1")
	var left time.Duration
	if err := s.pool.QueryRow(ctx, `SELECT extract(epoch FROM credential_expires_at - now())::bigint * 1000000000 FROM agents WHERE id = $1`,
		first.AgentID).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left < 47*time.Hour || left > 48*time.Hour {
		t.Fatalf("credential expires in %s, want the configured 48h", left)
	}

	agent := authenticate(t, s, first.Credential)
	renewed, err := s.RenewCredential(ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	if renewed.Credential == first.Credential || time.Until(renewed.ExpiresAt) < 47*time.Hour {
		t.Fatalf("renewed = %+v", renewed)
	}
	if _, err := s.AuthenticateAgent(ctx, credential.Hash(first.Credential)); !errors.Is(err, ErrUnknownCredential) {
		t.Fatalf("the renewed-away credential still works: err = %v", err)
	}
	if _, err := s.RenewCredential(ctx, agent); !errors.Is(err, ErrUnknownCredential) {
		t.Fatalf("renewing twice with the old credential: err = %v", err)
	}

	// Past its expiry the credential authenticates nobody and cannot be renewed.
	if _, err := s.pool.Exec(ctx, `UPDATE agents SET credential_expires_at = now() - interval '1 second' WHERE id = $1`, first.AgentID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AuthenticateAgent(ctx, credential.Hash(renewed.Credential)); !errors.Is(err, ErrExpiredCredential) ||
		!errors.Is(err, ErrRevokedCredential) {
		t.Fatalf("expired credential: err = %v, want ErrExpiredCredential (a kind of ErrRevokedCredential)", err)
	}
	if _, err := s.RenewCredential(ctx, authenticateIgnoringExpiry(renewed.Credential, first)); !errors.Is(err, ErrUnknownCredential) {
		t.Fatalf("renewing an expired credential: err = %v", err)
	}
}

func authenticateIgnoringExpiry(secret string, e Enrolled) Agent {
	return Agent{ID: e.AgentID, OrgID: e.OrgID, ServerID: e.ServerID, CredentialHash: credential.Hash(secret)}
}
