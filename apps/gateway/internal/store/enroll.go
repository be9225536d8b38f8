package store

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
)

// Enrollment is a validated enrolment request (docs/agent-protocol.md, POST /v1/enroll).
type Enrollment struct {
	TokenHash    []byte
	MachineID    string
	Hostname     string
	OS           string
	OSVersion    string
	Kernel       string
	Arch         string
	AgentVersion string
	// CurrentCredentialHash is the SHA-256 of the credential the machine already holds, when it
	// re-enrols (Authorization: Bearer spa_…); nil for a first enrolment.
	CurrentCredentialHash []byte
}

// Enrolled is what the agent needs to start sending.
type Enrolled struct {
	AgentID    string
	ServerID   string
	OrgID      string
	Credential string
	BatchHWM   int64
	Reenrolled bool
	// ExpiresAt is when the credential stops working unless the agent renews it.
	ExpiresAt time.Time
}

// Enroll exchanges an enrolment token for a fresh agent credential. The server is keyed by
// (org, machine id), so re-enrolling the same machine keeps its row and history, rotates the
// credential (the old one stops working at commit) and keeps the batch high-water mark.
func (s *Store) Enroll(ctx context.Context, e Enrollment) (enrolled Enrolled, err error) {
	secret, secretHash, err := credential.NewAgent()
	if err != nil {
		return Enrolled{}, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return Enrolled{}, fmt.Errorf("begin enrolment transaction: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()

	var tokenID, tokenHint string
	if tokenID, tokenHint, enrolled.OrgID, err = useToken(ctx, tx, e.TokenHash); err != nil {
		return Enrolled{}, err
	}
	err = tx.QueryRow(ctx, `
		INSERT INTO servers (org_id, machine_id, hostname, os, os_version, kernel, arch, agent_version, last_seen_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
		ON CONFLICT (org_id, machine_id) DO UPDATE SET
			hostname = EXCLUDED.hostname, os = EXCLUDED.os, os_version = EXCLUDED.os_version,
			kernel = EXCLUDED.kernel, arch = EXCLUDED.arch, agent_version = EXCLUDED.agent_version,
			last_seen_at = now()
		RETURNING id::text`,
		enrolled.OrgID, e.MachineID, e.Hostname, e.OS, e.OSVersion, e.Kernel, e.Arch, e.AgentVersion).
		Scan(&enrolled.ServerID)
	if err != nil {
		return Enrolled{}, fmt.Errorf("upsert server: %w", err)
	}

	// The server row is locked by the upsert above, so concurrent enrolments of one machine
	// take turns here. An existing agent is an identity: a token alone cannot take it over.
	var existingID string
	var currentHash []byte
	var revoked, allowed bool
	err = tx.QueryRow(ctx, `
		SELECT id::text, credential_hash, revoked_at IS NOT NULL,
		       COALESCE(reenrollment_allowed_until > now(), false)
		FROM agents WHERE server_id = $1 FOR UPDATE`, enrolled.ServerID).
		Scan(&existingID, &currentHash, &revoked, &allowed)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = tx.QueryRow(ctx, `
			INSERT INTO agents (org_id, server_id, credential_hash, enrollment_token_id, credential_expires_at)
			VALUES ($1, $2, $3, $4, now() + $5::interval)
			RETURNING id::text, batch_hwm, credential_expires_at`, enrolled.OrgID, enrolled.ServerID, secretHash, tokenID, s.credentialLifetime()).
			Scan(&enrolled.AgentID, &enrolled.BatchHWM, &enrolled.ExpiresAt)
		if err != nil {
			return Enrolled{}, fmt.Errorf("create agent: %w", err)
		}
	case err != nil:
		return Enrolled{}, fmt.Errorf("look up the machine's agent: %w", err)
	case revoked && !allowed:
		return Enrolled{}, ErrServerRevoked
	case !allowed && (len(e.CurrentCredentialHash) == 0 || subtle.ConstantTimeCompare(e.CurrentCredentialHash, currentHash) != 1):
		return Enrolled{}, ErrIdentityTaken
	default:
		// The admin's permission is spent by this enrolment, and the revocation it lifted ends.
		err = tx.QueryRow(ctx, `
			UPDATE agents SET credential_hash = $2, enrollment_token_id = $3, revoked_at = NULL, enrolled_at = now(),
			       credential_expires_at = now() + $4::interval, reenrollment_allowed_until = NULL
			WHERE id = $1
			RETURNING id::text, batch_hwm, credential_expires_at`, existingID, secretHash, tokenID, s.credentialLifetime()).
			Scan(&enrolled.AgentID, &enrolled.BatchHWM, &enrolled.ExpiresAt)
		if err != nil {
			return Enrolled{}, fmt.Errorf("rotate agent credential: %w", err)
		}
		enrolled.Reenrolled = true
	}

	_, err = tx.Exec(ctx, `
		INSERT INTO audit_log (org_id, action, target, details)
		VALUES ($1, 'agent.enrolled', $2, jsonb_build_object(
			'agentId', $3::text, 'serverId', $2::text, 'hostname', $4::text, 'machineId', $5::text,
			'enrollmentTokenId', $6::text, 'tokenHint', $7::text, 'reenrolled', $8::boolean))`,
		enrolled.OrgID, enrolled.ServerID, enrolled.AgentID, e.Hostname, e.MachineID, tokenID, tokenHint, enrolled.Reenrolled)
	if err != nil {
		return Enrolled{}, fmt.Errorf("write audit log: %w", err)
	}
	if err = tx.Commit(ctx); err != nil {
		return Enrolled{}, fmt.Errorf("commit enrolment: %w", err)
	}
	enrolled.Credential = secret
	return enrolled, nil
}

// useToken checks the token and counts its use; the row lock keeps the count exact.
func useToken(ctx context.Context, tx pgx.Tx, tokenHash []byte) (id, hint, orgID string, err error) {
	var expired, revoked bool
	// By hash across organisations (SECURITY DEFINER); then the transaction is scoped to the
	// token's organisation and the row locked there, which keeps the use count exact.
	err = tx.QueryRow(ctx, `
		SELECT token_id::text, token_hint, org_id, expired, revoked
		FROM spindle_enrollment_token_by_hash($1)`, tokenHash).Scan(&id, &hint, &orgID, &expired, &revoked)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", "", "", ErrTokenUnknown
	case err != nil:
		return "", "", "", fmt.Errorf("look up enrolment token: %w", err)
	case revoked:
		return "", "", "", ErrTokenRevoked
	case expired:
		return "", "", "", ErrTokenExpired
	}
	if err = scopeToOrg(ctx, tx, orgID); err != nil {
		return "", "", "", err
	}
	if err = tx.QueryRow(ctx, `SELECT revoked_at IS NOT NULL OR expires_at <= now() FROM enrollment_tokens WHERE id = $1 FOR UPDATE`, id).
		Scan(&revoked); err != nil || revoked {
		if err == nil {
			err = ErrTokenRevoked
		}
		return "", "", "", err
	}
	if _, err = tx.Exec(ctx, `UPDATE enrollment_tokens SET uses = uses + 1, last_used_at = now() WHERE id = $1`, id); err != nil {
		return "", "", "", fmt.Errorf("count enrolment token use: %w", err)
	}
	return id, hint, orgID, nil
}
