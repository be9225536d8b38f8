package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrProofRunNotFound: no run with this id is in progress for the calling agent (another
// agent's run, another organisation's, a finished one, or none at all). The agent stops it.
var ErrProofRunNotFound = errors.New("no such proof run in progress for this agent")

// ProofRunCommand is what the gateway tells an agent asking for proof-run work: start a run, cancel
// the one it runs, or nothing (both empty).
type ProofRunCommand struct {
	Start  *ProofRunStart `json:"start,omitempty"`
	Cancel string         `json:"cancel,omitempty"` // id of the run to cancel
}

// ProofRunStart is a run handed to the agent: the console's request as stored.
type ProofRunStart struct {
	RunID      string          `json:"runId"`
	Profile    string          `json:"profile"`
	Parameters json.RawMessage `json:"parameters"`
}

// ProofRunOutcome ends a run.
type ProofRunOutcome struct {
	Status string          // succeeded | failed | cancelled
	Report json.RawMessage // required for succeeded; for failed or cancelled the partial report, if any
	Error  string          // why it failed; ignored for succeeded
}

// lostRunMessage is stored on a run whose agent no longer runs it.
const lostRunMessage = "the agent restarted or lost the run before it finished; request a new run"

// NextProofRunCommand settles what the agent should do. runningID is the run the agent says it is
// running ("" for none). Any other run marked running for this server is one the agent lost
// (it restarted): it is failed with a reason. A cancel of the running run wins; otherwise an idle
// agent takes the oldest queued run, which becomes running.
func (s *Store) NextProofRunCommand(ctx context.Context, agent Agent, runningID string) (ProofRunCommand, error) {
	var command ProofRunCommand
	err := s.inOrg(ctx, agent.OrgID, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			UPDATE proof_runs SET status = 'failed', error = $4, finished_at = now()
			WHERE org_id = $1 AND server_id = $2 AND status IN ('running', 'cancelling')
			  AND id::text IS DISTINCT FROM $3`, agent.OrgID, agent.ServerID, nullIfEmpty(runningID), lostRunMessage); err != nil {
			return fmt.Errorf("fail lost proof runs: %w", err)
		}
		if runningID != "" {
			var status string
			err := tx.QueryRow(ctx, `
				UPDATE proof_runs SET heartbeat_at = now()
				WHERE org_id = $1 AND server_id = $2 AND agent_id = $3 AND id::text = $4 AND status IN ('running', 'cancelling')
				RETURNING status`, agent.OrgID, agent.ServerID, agent.ID, runningID).Scan(&status)
			if errors.Is(err, pgx.ErrNoRows) {
				// Finished, cancelled while queued, or never this agent's: the agent stops it.
				command.Cancel = runningID
				return nil
			}
			if err != nil {
				return fmt.Errorf("read the running proof run: %w", err)
			}
			if status == "cancelling" {
				command.Cancel = runningID
			}
			return nil
		}
		start := ProofRunStart{}
		err := tx.QueryRow(ctx, `
			UPDATE proof_runs SET status = 'running', agent_id = $3, started_at = now(), heartbeat_at = now()
			WHERE id = (SELECT id FROM proof_runs
			            WHERE org_id = $1 AND server_id = $2 AND status = 'queued'
			            ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
			RETURNING id::text, profile, parameters`, agent.OrgID, agent.ServerID, agent.ID).
			Scan(&start.RunID, &start.Profile, &start.Parameters)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("take a queued proof run: %w", err)
		}
		command.Start = &start
		return nil
	})
	return command, err
}

// RecordProofRunProgress stores the agent's progress on its run and says whether the user asked to
// cancel it.
func (s *Store) RecordProofRunProgress(ctx context.Context, agent Agent, runID string, fraction float64, phase string) (cancel bool, err error) {
	var status string
	err = s.inOrg(ctx, agent.OrgID, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `
			UPDATE proof_runs SET progress = $5, phase = $6, heartbeat_at = now()
			WHERE org_id = $1 AND server_id = $2 AND agent_id = $3 AND id::text = $4 AND status IN ('running', 'cancelling')
			RETURNING status`, agent.OrgID, agent.ServerID, agent.ID, runID, fraction, phase).Scan(&status)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return false, ErrProofRunNotFound
	}
	if err != nil {
		return false, fmt.Errorf("record proof-run progress: %w", err)
	}
	return status == "cancelling", nil
}

// FinishProofRun stores the run's outcome: its report when it succeeded, the reason otherwise
// with the partial report of the passes that finished when the agent sent one.
func (s *Store) FinishProofRun(ctx context.Context, agent Agent, runID string, outcome ProofRunOutcome) error {
	var report []byte
	if trimmed := bytes.TrimSpace(outcome.Report); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		report = trimmed
	}
	message := outcome.Error
	switch outcome.Status {
	case "succeeded":
		message = ""
	case "failed", "cancelled":
	default:
		return fmt.Errorf("proof-run outcome %q is not succeeded, failed or cancelled", outcome.Status)
	}
	progress := any(nil)
	if outcome.Status == "succeeded" {
		progress = 1.0
	}
	var finished int64
	err := s.inOrg(ctx, agent.OrgID, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			UPDATE proof_runs
			SET status = $5, report = $6, error = NULLIF($7, ''), finished_at = now(), heartbeat_at = now(),
			    progress = COALESCE($8, progress)
			WHERE org_id = $1 AND server_id = $2 AND agent_id = $3 AND id::text = $4 AND status IN ('running', 'cancelling')`,
			agent.OrgID, agent.ServerID, agent.ID, runID, outcome.Status, report, truncate(message, 2000), progress)
		finished = tag.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("record proof-run outcome: %w", err)
	}
	if finished == 0 {
		return ErrProofRunNotFound
	}
	return nil
}

// FailSilentProofRuns fails every run whose agent has said nothing about it for longer than
// silence (it disconnected, or its host stopped), so no run stays "running" forever. It is the
// gateway's housekeeping across organisations, yet spindle_gateway sees one organisation at a
// time (row-level security), so it walks the organisations (readable by the role) inside one
// transaction, setting each in turn: one cheap indexed UPDATE per organisation per sweep.
func (s *Store) FailSilentProofRuns(ctx context.Context, silence time.Duration) (int64, error) {
	var failed int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id FROM organizations ORDER BY id`)
		if err != nil {
			return err
		}
		orgIDs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, orgID := range orgIDs {
			if err := scopeToOrg(ctx, tx, orgID); err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, `
				UPDATE proof_runs
				SET status = 'failed', finished_at = now(),
				    error = format('the agent stopped reporting on this run for more than %s seconds (disconnected, or its host stopped); request a new run', $2::bigint)
				WHERE org_id = $1 AND status IN ('running', 'cancelling') AND heartbeat_at < now() - make_interval(secs => $2::bigint)`,
				orgID, int64(silence.Seconds()))
			if err != nil {
				return err
			}
			failed += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("fail silent proof runs: %w", err)
	}
	return failed, nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// RecordProofRunProfiles stores the proof-run profiles the agent offers (name, description, …) and
// the directories it allows remote runs in, in agents.capabilities under "proofRuns" ("bench"
// before migration 20261128220100_proof_runs), for the console's request form.
func (s *Store) RecordProofRunProfiles(ctx context.Context, agent Agent, profiles, paths json.RawMessage) error {
	err := s.execInOrg(ctx, agent.OrgID, `
		UPDATE agents
		SET capabilities = (capabilities - 'bench') || jsonb_build_object('proofRuns',
		      jsonb_build_object('profiles', $3::jsonb, 'paths', $4::jsonb, 'reportedAt', now()))
		WHERE id = $1 AND org_id = $2`, agent.ID, agent.OrgID, []byte(profiles), []byte(paths))
	if err != nil {
		return fmt.Errorf("record proof-run profiles: %w", err)
	}
	return nil
}
