package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// EffectivePolicy is what the worker materialised for a server: the document the agent must
// run and the hash (lowercase hex SHA-256 of its canonical JSON) sent as OpAMP config_hash.
type EffectivePolicy struct {
	Document json.RawMessage
	Hash     string
}

// ErrNoEffectivePolicy: the worker has not computed this server's policy yet (or its first
// merge was invalid); nothing is sent until it has.
var ErrNoEffectivePolicy = errors.New("no effective policy for this server yet")

// EffectivePolicy reads the server's effective policy, scoped to the agent's organisation.
func (s *Store) EffectivePolicy(ctx context.Context, agent Agent) (EffectivePolicy, error) {
	var p EffectivePolicy
	var document []byte
	err := s.inOrg(ctx, agent.OrgID, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `
			SELECT document::text, hash FROM server_effective_policies
			WHERE server_id = $1 AND org_id = $2 AND hash IS NOT NULL`, agent.ServerID, agent.OrgID).Scan(&document, &p.Hash)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return EffectivePolicy{}, ErrNoEffectivePolicy
	}
	if err != nil {
		return EffectivePolicy{}, fmt.Errorf("read effective policy: %w", err)
	}
	p.Document = document
	return p, nil
}

// ReportedPolicyHash is the last_remote_config_hash the agent reported (to any gateway), "" if none.
func (s *Store) ReportedPolicyHash(ctx context.Context, agent Agent) (string, error) {
	var hash *string
	err := s.inOrg(ctx, agent.OrgID, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT reported_hash FROM server_policy_status WHERE server_id = $1 AND org_id = $2`,
			agent.ServerID, agent.OrgID).Scan(&hash)
	})
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && hash == nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read reported policy hash: %w", err)
	}
	return *hash, nil
}

// RecordPolicySent notes that the gateway sent this policy: the server now waits for its agent.
func (s *Store) RecordPolicySent(ctx context.Context, agent Agent, hash string) error {
	err := s.execInOrg(ctx, agent.OrgID, `
		INSERT INTO server_policy_status (org_id, server_id, desired_version_hash, status, message)
		VALUES ($1, $2, $3, 'pending', '')
		ON CONFLICT (server_id) DO UPDATE SET desired_version_hash = EXCLUDED.desired_version_hash,
			status = CASE WHEN server_policy_status.reported_hash = EXCLUDED.desired_version_hash
			              THEN server_policy_status.status ELSE 'pending' END,
			message = CASE WHEN server_policy_status.reported_hash = EXCLUDED.desired_version_hash
			               THEN server_policy_status.message ELSE '' END
		WHERE server_policy_status.org_id = EXCLUDED.org_id`,
		agent.OrgID, agent.ServerID, hash)
	if err != nil {
		return fmt.Errorf("record policy sent: %w", err)
	}
	return nil
}

// PolicyState is the agent's RemoteConfigStatus in the words of server_policy_status.
type PolicyState string

const (
	PolicyPending PolicyState = "pending" // APPLYING, or nothing reported yet
	PolicyApplied PolicyState = "applied"
	PolicyFailed  PolicyState = "failed"
)

// PolicyReport is one RemoteConfigStatus from the agent.
type PolicyReport struct {
	Hash    string // last_remote_config_hash, lowercase hex
	State   PolicyState
	Message string // error_message when failed
}

// AgentReport is what one OpAMP message told about the agent; nil fields were not in the
// message (OpAMP leaves out what did not change) and leave the stored value alone.
type AgentReport struct {
	Host            *telemetry.HostInfo
	Capabilities    map[string]any // merged into agents.capabilities
	Health          map[string]any
	EffectiveConfig map[string]any
}

// Listen hands out a connection of its own (taken out of the pool for good) listening on
// the channels; the caller closes it. LISTEN needs one session for as long as it listens.
func (s *Store) Listen(ctx context.Context, channels ...string) (*pgx.Conn, error) {
	pooled, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to listen on %s: %w", strings.Join(channels, ", "), err)
	}
	conn := pooled.Hijack()
	s.inUse.Add(-1) // out of the pool for good: never released
	for _, channel := range channels {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = conn.Close(closeCtx)
			return nil, fmt.Errorf("listen on %s: %w", channel, err)
		}
	}
	return conn, nil
}
