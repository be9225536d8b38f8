package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Agent upgrades (migration 20261128190000_agent_upgrades; docs/agent-protocol.md "Upgrades"):
// the gateway records the releases it serves, offers each server's live attempt over OpAMP and
// records what the agent reports on it. It never plans an upgrade: the worker and the console do.

// ReleaseFile is one downloadable file of a release, as agent_releases lists it.
type ReleaseFile struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Format string `json:"format,omitempty"` // deb or rpm, for packages
}

// ReleaseRecord is a release this gateway serves.
type ReleaseRecord struct {
	Version  string
	Files    []ReleaseFile
	Packages []ReleaseFile
}

// RecordReleases upserts the releases this gateway serves and marks them seen now. Releases are
// not tenant data: the statement runs as spindle_gateway without an organisation.
func (s *Store) RecordReleases(ctx context.Context, releases []ReleaseRecord) error {
	if len(releases) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL ROLE spindle_gateway`); err != nil {
			return err
		}
		for _, r := range releases {
			files, err := json.Marshal(nonNil(r.Files))
			if err != nil {
				return err
			}
			packages, err := json.Marshal(nonNil(r.Packages))
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO agent_releases (version, files, packages) VALUES ($1, $2, $3)
				ON CONFLICT (version) DO UPDATE SET files = EXCLUDED.files, packages = EXCLUDED.packages, last_seen_at = now()`,
				r.Version, files, packages); err != nil {
				return fmt.Errorf("release %s: %w", r.Version, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record the agent releases served: %w", err)
	}
	return nil
}

func nonNil(files []ReleaseFile) []ReleaseFile {
	if files == nil {
		return []ReleaseFile{}
	}
	return files
}

// LiveUpgrade is a server's attempt the gateway offers (offered, downloading or installing),
// with what it needs to pick the file: the server's OS, architecture and agent version.
type LiveUpgrade struct {
	ID            string
	ServerID      string
	TargetVersion string
	State         string
	OfferHash     string // "" until a gateway first offered it
	OS, Arch      string
	AgentVersion  string
}

// LiveUpgrades reads the live attempts of these servers of one organisation (at most one each).
func (s *Store) LiveUpgrades(ctx context.Context, orgID string, serverIDs []string) (map[string]LiveUpgrade, error) {
	ids, err := uuidParams(serverIDs)
	if err != nil {
		return nil, fmt.Errorf("read agent upgrades: %w", err)
	}
	live := map[string]LiveUpgrade{}
	err = s.inOrg(ctx, orgID, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			SELECT u.id::text, u.server_id::text, u.target_version, u.state, COALESCE(u.offer_hash, ''), s.os, s.arch, s.agent_version
			FROM agent_upgrades u JOIN servers s ON s.org_id = u.org_id AND s.id = u.server_id
			WHERE u.org_id = $1 AND u.server_id = ANY($2::uuid[]) AND u.state IN ('offered', 'downloading', 'installing')`, orgID, ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var u LiveUpgrade
			if err := rows.Scan(&u.ID, &u.ServerID, &u.TargetVersion, &u.State, &u.OfferHash, &u.OS, &u.Arch, &u.AgentVersion); err != nil {
				return err
			}
			live[u.ServerID] = u
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read agent upgrades: %w", err)
	}
	return live, nil
}

// RecordUpgradeOffered notes the offer's hash on the attempt (the first gateway to offer it
// records it; the hash is the same from every gateway), so the agent's reports find it.
func (s *Store) RecordUpgradeOffered(ctx context.Context, orgID, upgradeID, offerHash string) error {
	err := s.execInOrg(ctx, orgID, `
		UPDATE agent_upgrades SET offer_hash = $3, offered_at = COALESCE(offered_at, now())
		WHERE org_id = $1 AND id = $2 AND offer_hash IS DISTINCT FROM $3`, orgID, upgradeID, offerHash)
	if err != nil {
		return fmt.Errorf("record the upgrade offered: %w", err)
	}
	return nil
}

// UpgradeReport is an agent's PackageStatus of itself, in agent_upgrades' words.
type UpgradeReport struct {
	OfferHash    string
	State        string // downloading, installing, installed, failed, rolled_back
	Message      string
	AgentVersion string // the version the agent runs
	ReportedAt   time.Time
}

// RecordUpgradeReport moves the attempt the report names, if it is still live: forward only
// (a late "downloading" never undoes "installing"), and an "installed" from an agent that does
// not run the target version is recorded as failed, saying so. It returns the state written
// ("" when the report matched no live attempt).
func (s *Store) RecordUpgradeReport(ctx context.Context, agent Agent, r UpgradeReport) (string, error) {
	var state string
	err := s.inOrg(ctx, agent.OrgID, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `
			WITH reported AS (
				SELECT u.id,
				       CASE WHEN $4::text = 'installed' AND u.target_version <> $6::text THEN 'failed' ELSE $4::text END AS state,
				       CASE WHEN $4::text = 'installed' AND u.target_version <> $6::text
				            THEN 'the agent reported the upgrade installed but runs ' || $6 || ', not ' || u.target_version
				            ELSE $5::text END AS message
				FROM agent_upgrades u
				WHERE u.org_id = $1 AND u.server_id = $2 AND u.offer_hash = $3 AND u.state IN ('offered', 'downloading', 'installing')
				  AND NOT ($4 = 'downloading' AND u.state = 'installing')
			)
			UPDATE agent_upgrades u SET state = r.state, message = left(r.message, 4000), reported_at = $7::timestamptz,
				finished_at = CASE WHEN r.state IN ('installed', 'failed', 'rolled_back') THEN $7::timestamptz END
			FROM reported r WHERE u.id = r.id
			RETURNING u.state`,
			agent.OrgID, agent.ServerID, r.OfferHash, r.State, r.Message, r.AgentVersion, r.ReportedAt).Scan(&state)
		if err == pgx.ErrNoRows {
			return nil
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("record the agent's upgrade report: %w", err)
	}
	return state, nil
}
