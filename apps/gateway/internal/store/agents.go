package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Agent is an authenticated agent: the only source of org_id and server_id for its telemetry.
type Agent struct {
	ID             string
	OrgID          string
	ServerID       string
	CredentialHash []byte
}

// AuthenticateAgent finds the agent holding the credential with this SHA-256.
func (s *Store) AuthenticateAgent(ctx context.Context, credentialHash []byte) (Agent, error) {
	agent := Agent{CredentialHash: credentialHash}
	var revoked bool
	// The join on org_id is the second wall: an agent row pointing at another org's server
	// authenticates nobody.
	err := s.pool.QueryRow(ctx, `
		SELECT a.id::text, a.org_id, a.server_id::text, a.revoked_at IS NOT NULL
		FROM agents a
		JOIN servers s ON s.id = a.server_id AND s.org_id = a.org_id
		WHERE a.credential_hash = $1`, credentialHash).
		Scan(&agent.ID, &agent.OrgID, &agent.ServerID, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return Agent{}, ErrUnknownCredential
	}
	if err != nil {
		return Agent{}, fmt.Errorf("look up agent credential: %w", err)
	}
	if revoked {
		return Agent{}, ErrRevokedCredential
	}
	return agent, nil
}
