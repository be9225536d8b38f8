package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
)

// DefaultCredentialLifetime is how long an agent credential works without renewal. The agent
// renews when a third of it is left (POST /v1/renew), so a healthy agent never sees it expire;
// a stolen credential stops working at the latest this long after the machine stops renewing.
const DefaultCredentialLifetime = 90 * 24 * time.Hour

// SetCredentialLifetime sets the lifetime of credentials issued from now on (enrolment, renewal).
func (s *Store) SetCredentialLifetime(d time.Duration) error {
	if d < time.Minute {
		return fmt.Errorf("agent credential lifetime %s is shorter than a minute; set SPINDLE_AGENT_CREDENTIAL_LIFETIME to e.g. 2160h", d)
	}
	s.lifetime = d
	return nil
}

// credentialLifetime is the lifetime as a PostgreSQL interval literal.
func (s *Store) credentialLifetime() string {
	d := s.lifetime
	if d == 0 {
		d = DefaultCredentialLifetime
	}
	return fmt.Sprintf("%d seconds", int64(d/time.Second))
}

// Renewed is a fresh credential for an authenticated agent.
type Renewed struct {
	Credential string
	ExpiresAt  time.Time
}

// RenewCredential replaces the agent's credential with a fresh one of full lifetime. Only the
// holder of the current, unrevoked and unexpired credential can renew; the old one stops working
// at commit, so a renewal race leaves exactly one valid credential.
func (s *Store) RenewCredential(ctx context.Context, agent Agent) (Renewed, error) {
	secret, hash, err := credential.NewAgent()
	if err != nil {
		return Renewed{}, err
	}
	var renewed Renewed
	err = s.inOrg(ctx, agent.OrgID, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `
			UPDATE agents SET credential_hash = $3, credential_expires_at = now() + $4::interval
			WHERE id = $1 AND credential_hash = $2 AND revoked_at IS NULL AND credential_expires_at > now()
			RETURNING credential_expires_at`, agent.ID, agent.CredentialHash, hash, s.credentialLifetime()).Scan(&renewed.ExpiresAt)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Renewed{}, ErrUnknownCredential
	}
	if err != nil {
		return Renewed{}, fmt.Errorf("renew agent credential: %w", err)
	}
	renewed.Credential = secret
	return renewed, nil
}

// scopeToOrg makes the rest of the transaction run as the database role spindle_gateway with
// spindle.org_id set (migration 20261123130000_tenant_security): row-level security then refuses
// any row of another organisation, whatever a query says.
func scopeToOrg(ctx context.Context, tx pgx.Tx, orgID string) error {
	if _, err := tx.Exec(ctx, `SET LOCAL ROLE spindle_gateway`); err != nil {
		return fmt.Errorf("adopt the spindle_gateway role (is migration 20261123130000_tenant_security applied, and the gateway's login granted spindle_gateway?): %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('spindle.org_id', $1, true)`, orgID); err != nil {
		return fmt.Errorf("set the organisation: %w", err)
	}
	return nil
}

// inOrg runs work in one transaction scoped to the organisation (scopeToOrg): every statement a
// method makes for an authenticated agent or a resolved token goes through here or WriteGroup
// / Enroll, which scope their own transactions the same way.
func (s *Store) inOrg(ctx context.Context, orgID string, work func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := scopeToOrg(ctx, tx, orgID); err != nil {
			return err
		}
		return work(tx)
	})
}

// execInOrg is inOrg for one statement.
func (s *Store) execInOrg(ctx context.Context, orgID, sql string, args ...any) error {
	return s.inOrg(ctx, orgID, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, sql, args...)
		return err
	})
}
