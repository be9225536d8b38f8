package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The OpAMP server of a gateway holding thousands of agents writes what they report in batches:
// one transaction per flush, one statement per organisation and table, whatever the number of
// agents (apps/gateway/README.md, "OpAMP at fleet scale"). Each statement runs as
// spindle_gateway with spindle.org_id set to that organisation, so row-level security still
// refuses a row of another one.

// AgentUpdate is everything one agent said since the last flush: when it was last heard from,
// what it reported (nil fields: nothing new), and its newest RemoteConfigStatus.
type AgentUpdate struct {
	Agent  Agent
	SeenAt time.Time
	Report AgentReport
	Policy *PolicyUpdate
}

// PolicyUpdate is the newest RemoteConfigStatus of an agent, and the hash it last reported
// APPLIED since the previous flush ("" none), so an APPLIED followed by a FAILED within one
// batch still moves applied_hash. The times are when the gateway received each report, not
// when a batch wrote it: the console and the recommendations' realised effects read applied_at
// as the moment the agent confirmed the policy.
type PolicyUpdate struct {
	Latest      PolicyReport
	ReportedAt  time.Time
	AppliedHash string
	AppliedAt   time.Time
	// Sent is set when the report answers a policy this gateway sent the agent: the report then
	// stands for the pending mark too (desired_version_hash = Sent), which is not written apart.
	Sent string
}

// RecordAgentUpdates writes a batch of agent reports: agents (opamp_seen_at, capabilities,
// health, effective config), the host metadata of servers whose agent described itself, and
// server_policy_status. All or nothing: on error the caller keeps the batch and tries again.
func (s *Store) RecordAgentUpdates(ctx context.Context, updates []AgentUpdate) error {
	return s.inEachOrg(ctx, updates, func(tx pgx.Tx, orgID string, batch []AgentUpdate) error {
		if err := updateAgentRows(ctx, tx, orgID, batch); err != nil {
			return err
		}
		return updatePolicyStatus(ctx, tx, orgID, batch)
	})
}

// RecordAgentReports writes what the agents said about themselves: agents (opamp_seen_at,
// capabilities, health, effective config) and servers (last_seen_at, host metadata of those
// that described themselves); Policy is not read. A seen time never moves backwards, so an
// older batch retried after a newer one changes nothing.
func (s *Store) RecordAgentReports(ctx context.Context, updates []AgentUpdate) error {
	return s.inEachOrg(ctx, updates, func(tx pgx.Tx, orgID string, batch []AgentUpdate) error {
		return updateAgentRows(ctx, tx, orgID, batch)
	})
}

// RecordPolicyStatuses writes only server_policy_status for the updates with a Policy: the
// confirmations a policy change waits for, kept apart from the agents' and servers' rows so they
// never queue behind them.
func (s *Store) RecordPolicyStatuses(ctx context.Context, updates []AgentUpdate) error {
	withPolicy := make([]AgentUpdate, 0, len(updates))
	for _, u := range updates {
		if u.Policy != nil {
			withPolicy = append(withPolicy, u)
		}
	}
	return s.inEachOrg(ctx, withPolicy, func(tx pgx.Tx, orgID string, batch []AgentUpdate) error {
		return updatePolicyStatus(ctx, tx, orgID, batch)
	})
}

// updateAgentRows writes the agents' rows, and the servers' rows of those with a seen time or
// a host description (an update with a zero SeenAt carries news only and moves no "last seen").
func updateAgentRows(ctx context.Context, tx pgx.Tx, orgID string, batch []AgentUpdate) error {
	if err := updateAgents(ctx, tx, orgID, batch); err != nil {
		return err
	}
	servers := make([]AgentUpdate, 0, len(batch))
	for _, u := range batch {
		if !u.SeenAt.IsZero() || u.Report.Host != nil {
			servers = append(servers, u)
		}
	}
	return updateServers(ctx, tx, orgID, servers)
}

// inEachOrg runs work once per organisation of the updates, all in one transaction.
func (s *Store) inEachOrg(ctx context.Context, updates []AgentUpdate, work func(tx pgx.Tx, orgID string, batch []AgentUpdate) error) error {
	if len(updates) == 0 {
		return nil
	}
	byOrg := map[string][]AgentUpdate{}
	for _, u := range updates {
		byOrg[u.Agent.OrgID] = append(byOrg[u.Agent.OrgID], u)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for orgID, batch := range byOrg {
			if err := scopeToOrg(ctx, tx, orgID); err != nil {
				return err
			}
			if err := work(tx, orgID, batch); err != nil {
				return err
			}
		}
		return nil
	})
}

func updateAgents(ctx context.Context, tx pgx.Tx, orgID string, batch []AgentUpdate) error {
	n := len(batch)
	ids, seen := make([]pgtype.UUID, n), make([]pgtype.Timestamptz, n)
	capabilities, health, effective := make([]*string, n), make([]*string, n), make([]*string, n)
	for i, u := range batch {
		var err error
		if ids[i], err = uuidParam(u.Agent.ID); err != nil {
			return err
		}
		seen[i] = optionalTime(u.SeenAt)
		capabilities[i] = jsonText(u.Report.Capabilities)
		health[i] = jsonText(u.Report.Health)
		effective[i] = jsonText(u.Report.EffectiveConfig)
	}
	_, err := tx.Exec(ctx, `
		UPDATE agents a SET
			opamp_seen_at    = GREATEST(a.opamp_seen_at, r.seen_at),
			capabilities     = CASE WHEN r.capabilities IS NULL THEN a.capabilities ELSE a.capabilities || r.capabilities::jsonb END,
			health           = COALESCE(r.health::jsonb, a.health),
			effective_config = COALESCE(r.effective::jsonb, a.effective_config)
		FROM unnest($2::uuid[], $3::timestamptz[], $4::text[], $5::text[], $6::text[]) AS r(id, seen_at, capabilities, health, effective)
		WHERE a.id = r.id AND a.org_id = $1`, orgID, ids, seen, capabilities, health, effective)
	if err != nil {
		return fmt.Errorf("record agent reports: %w", err)
	}
	return nil
}

func updateServers(ctx context.Context, tx pgx.Tx, orgID string, batch []AgentUpdate) error {
	n := len(batch)
	if n == 0 {
		return nil
	}
	ids, seen := make([]pgtype.UUID, n), make([]pgtype.Timestamptz, n)
	hostname, os, osVersion, kernel, arch, version := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, u := range batch {
		var err error
		if ids[i], err = uuidParam(u.Agent.ServerID); err != nil {
			return err
		}
		seen[i] = optionalTime(u.SeenAt)
		if h := u.Report.Host; h != nil {
			hostname[i], os[i], osVersion[i], kernel[i], arch[i], version[i] = h.Hostname, h.OS, h.OSVersion, h.Kernel, h.Arch, h.AgentVersion
		}
	}
	_, err := tx.Exec(ctx, `
		UPDATE servers s SET
			last_seen_at  = GREATEST(s.last_seen_at, r.seen_at),
			hostname      = COALESCE(NULLIF(r.hostname, ''), s.hostname),
			os            = COALESCE(NULLIF(r.os, ''), s.os),
			os_version    = COALESCE(NULLIF(r.os_version, ''), s.os_version),
			kernel        = COALESCE(NULLIF(r.kernel, ''), s.kernel),
			arch          = COALESCE(NULLIF(r.arch, ''), s.arch),
			agent_version = COALESCE(NULLIF(r.agent_version, ''), s.agent_version)
		FROM unnest($2::uuid[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
			AS r(id, seen_at, hostname, os, os_version, kernel, arch, agent_version)
		WHERE s.id = r.id AND s.org_id = $1`, orgID, ids, seen, hostname, os, osVersion, kernel, arch, version)
	if err != nil {
		return fmt.Errorf("update servers last seen: %w", err)
	}
	return nil
}

// updatePolicyStatus is RecordPolicyReport for many servers: applied_hash and applied_at move
// only on APPLIED (applied_at only when the hash changes), and both times are the reports'
// arrival at the gateway. A report answering a policy this gateway sent (Sent) also sets
// desired_version_hash, so a FAILED is shown against the policy it refused; other reports leave
// desired_version_hash to the pending marks (RecordPoliciesSent).
func updatePolicyStatus(ctx context.Context, tx pgx.Tx, orgID string, batch []AgentUpdate) error {
	var answered, other policyStatusRows
	for _, u := range batch {
		var err error
		switch {
		case u.Policy == nil:
		case u.Policy.Sent != "":
			err = answered.add(u)
		default:
			err = other.add(u)
		}
		if err != nil {
			return err
		}
	}
	if err := answered.write(ctx, tx, orgID, `EXCLUDED.desired_version_hash`); err != nil {
		return err
	}
	return other.write(ctx, tx, orgID, `COALESCE(p.desired_version_hash, EXCLUDED.desired_version_hash)`)
}

// policyStatusRows are the columns of a policy status upsert, one array each.
type policyStatusRows struct {
	servers                                    []pgtype.UUID
	desired, hashes, states, messages, applied []string
	reportedAt, appliedAt                      []pgtype.Timestamptz
}

func (r *policyStatusRows) add(u AgentUpdate) error {
	p := u.Policy
	server, err := uuidParam(u.Agent.ServerID)
	if err != nil {
		return err
	}
	r.servers = append(r.servers, server)
	r.desired = append(r.desired, p.Sent)
	r.hashes = append(r.hashes, p.Latest.Hash)
	r.states = append(r.states, string(p.Latest.State))
	r.messages = append(r.messages, p.Latest.Message)
	r.applied = append(r.applied, p.AppliedHash)
	r.reportedAt = append(r.reportedAt, optionalTime(p.ReportedAt))
	r.appliedAt = append(r.appliedAt, optionalTime(p.AppliedAt))
	return nil
}

// write upserts the rows; desired is the SQL that sets desired_version_hash of an existing row.
func (r *policyStatusRows) write(ctx context.Context, tx pgx.Tx, orgID, desired string) error {
	if len(r.servers) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO server_policy_status AS p (org_id, server_id, desired_version_hash, reported_hash, applied_hash,
			status, message, reported_at, applied_at)
		SELECT $1, r.server_id, COALESCE(NULLIF(r.desired, ''), r.hash), r.hash, NULLIF(r.applied, ''), r.status, r.message,
			COALESCE(r.reported_at, now()), CASE WHEN r.applied <> '' THEN COALESCE(r.applied_at, now()) END
		FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[])
			AS r(server_id, desired, hash, status, message, applied, reported_at, applied_at)
		ORDER BY r.server_id -- rows locked in one order, as RecordPoliciesSent does: no deadlock between them
		ON CONFLICT (server_id) DO UPDATE SET
			desired_version_hash = `+desired+`,
			reported_hash = EXCLUDED.reported_hash,
			status        = EXCLUDED.status,
			message       = EXCLUDED.message,
			reported_at   = EXCLUDED.reported_at,
			applied_hash  = COALESCE(EXCLUDED.applied_hash, p.applied_hash),
			applied_at    = CASE WHEN EXCLUDED.applied_hash IS NOT NULL AND p.applied_hash IS DISTINCT FROM EXCLUDED.applied_hash
			                     THEN EXCLUDED.applied_at ELSE p.applied_at END
		WHERE p.org_id = EXCLUDED.org_id`,
		orgID, r.servers, r.desired, r.hashes, r.states, r.messages, r.applied, r.reportedAt, r.appliedAt)
	if err != nil {
		return fmt.Errorf("record policy status: %w", err)
	}
	return nil
}

// The batch statements take their arrays in pgx's binary encoding: a []string bound to a uuid[]
// failed the binary plan first (formatting the whole array into an error) and fell back to text.

func optionalTime(t time.Time) pgtype.Timestamptz {
	return pgtype.Timestamptz{Time: t, Valid: !t.IsZero()}
}

func uuidParam(id string) (pgtype.UUID, error) {
	var u pgtype.UUID
	if err := u.Scan(id); err != nil {
		return u, fmt.Errorf("id %q is not a UUID: %w", id, err)
	}
	return u, nil
}

func uuidParams(ids []string) ([]pgtype.UUID, error) {
	out := make([]pgtype.UUID, len(ids))
	for i, id := range ids {
		var err error
		if out[i], err = uuidParam(id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func jsonText(v map[string]any) *string {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	s := string(b)
	return &s
}

// PolicyTarget is a server's effective policy and the hash its agent last reported ("" none).
type PolicyTarget struct {
	Policy       EffectivePolicy
	ReportedHash string
}

// PolicyTargets reads the effective policy and reported hash of many servers of one
// organisation in one query; servers without an effective policy are left out. Identical
// documents share one slice, so pushing one policy to a whole fleet holds it in memory once.
func (s *Store) PolicyTargets(ctx context.Context, orgID string, serverIDs []string) (map[string]PolicyTarget, error) {
	ids, err := uuidParams(serverIDs)
	if err != nil {
		return nil, fmt.Errorf("read effective policies: %w", err)
	}
	targets := make(map[string]PolicyTarget, len(serverIDs))
	documents := map[string][]byte{}
	err = s.inOrg(ctx, orgID, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			SELECT e.server_id::text, e.hash, e.document::text, COALESCE(p.reported_hash, '')
			FROM server_effective_policies e
			LEFT JOIN server_policy_status p ON p.server_id = e.server_id AND p.org_id = e.org_id
			WHERE e.org_id = $1 AND e.server_id = ANY($2::uuid[]) AND e.hash IS NOT NULL`, orgID, ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var serverID, hash, document, reported string
			if err := rows.Scan(&serverID, &hash, &document, &reported); err != nil {
				return err
			}
			body, ok := documents[hash]
			if !ok {
				body = []byte(document)
				documents[hash] = body
			}
			targets[serverID] = PolicyTarget{Policy: EffectivePolicy{Document: body, Hash: hash}, ReportedHash: reported}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read effective policies: %w", err)
	}
	return targets, nil
}

// RecordPoliciesSent is RecordPolicySent for many servers of one organisation: hashes maps
// server id → the hash sent.
func (s *Store) RecordPoliciesSent(ctx context.Context, orgID string, hashes map[string]string) error {
	if len(hashes) == 0 {
		return nil
	}
	servers, sent := make([]pgtype.UUID, 0, len(hashes)), make([]string, 0, len(hashes))
	for serverID, hash := range hashes {
		server, err := uuidParam(serverID)
		if err != nil {
			return fmt.Errorf("record policies sent: %w", err)
		}
		servers, sent = append(servers, server), append(sent, hash)
	}
	err := s.execInOrg(ctx, orgID, `
		INSERT INTO server_policy_status AS p (org_id, server_id, desired_version_hash, status, message)
		SELECT $1, r.server_id, r.hash, 'pending', '' FROM unnest($2::uuid[], $3::text[]) AS r(server_id, hash)
		ORDER BY r.server_id -- rows locked in one order, as the report batches do
		ON CONFLICT (server_id) DO UPDATE SET desired_version_hash = EXCLUDED.desired_version_hash,
			status  = CASE WHEN p.reported_hash = EXCLUDED.desired_version_hash THEN p.status ELSE 'pending' END,
			message = CASE WHEN p.reported_hash = EXCLUDED.desired_version_hash THEN p.message ELSE '' END
		WHERE p.org_id = EXCLUDED.org_id`, orgID, servers, sent)
	if err != nil {
		return fmt.Errorf("record policies sent: %w", err)
	}
	return nil
}

// CredentialCheck is the outcome of re-checking one credential: the agent, or why it no
// longer authenticates (ErrUnknownCredential, ErrRevokedCredential, ErrExpiredCredential).
type CredentialCheck struct {
	Agent Agent
	Err   error
}

// AuthenticateAgents is AuthenticateAgent for many credentials in one query
// (spindle_agents_by_credentials, migration 20261124150000_opamp_fleet_scale); the result is
// keyed by string(credentialHash) and holds every hash asked about.
func (s *Store) AuthenticateAgents(ctx context.Context, credentialHashes [][]byte) (map[string]CredentialCheck, error) {
	out := make(map[string]CredentialCheck, len(credentialHashes))
	for _, h := range credentialHashes {
		out[string(h)] = CredentialCheck{Err: ErrUnknownCredential}
	}
	rows, err := s.pool.Query(ctx, `
		SELECT credential_hash, agent_id::text, org_id, server_id::text, revoked, expired
		FROM spindle_agents_by_credentials($1)`, credentialHashes)
	if err != nil {
		return nil, fmt.Errorf("look up agent credentials: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var agent Agent
		var revoked, expired bool
		if err := rows.Scan(&agent.CredentialHash, &agent.ID, &agent.OrgID, &agent.ServerID, &revoked, &expired); err != nil {
			return nil, fmt.Errorf("look up agent credentials: %w", err)
		}
		switch {
		case revoked:
			out[string(agent.CredentialHash)] = CredentialCheck{Err: ErrRevokedCredential}
		case expired:
			out[string(agent.CredentialHash)] = CredentialCheck{Err: ErrExpiredCredential}
		default:
			out[string(agent.CredentialHash)] = CredentialCheck{Agent: agent}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up agent credentials: %w", err)
	}
	return out, nil
}
