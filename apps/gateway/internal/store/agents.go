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
	var revoked, expired bool
	// The function's join on org_id is the second wall: an agent row pointing at another org's
	// server authenticates nobody.
	// spindle_agent_by_credential (SECURITY DEFINER) is the one lookup that crosses
	// organisations: row-level security hides agents until the organisation is known.
	err := s.pool.QueryRow(ctx, `
		SELECT agent_id::text, org_id, server_id::text, revoked, expired
		FROM spindle_agent_by_credential($1)`, credentialHash).
		Scan(&agent.ID, &agent.OrgID, &agent.ServerID, &revoked, &expired)
	if errors.Is(err, pgx.ErrNoRows) {
		return Agent{}, ErrUnknownCredential
	}
	if err != nil {
		return Agent{}, fmt.Errorf("look up agent credential: %w", err)
	}
	if revoked {
		return Agent{}, ErrRevokedCredential
	}
	if expired {
		return Agent{}, ErrExpiredCredential
	}
	return agent, nil
}
