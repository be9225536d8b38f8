-- One name for one thing (issue 28): the customer's A/B run is a "proof run" everywhere (code,
-- routes, UI, docs); "benchmark" is kept for our own performance measurements. The table, its
-- indexes, constraints, trigger and notification channel take the name; row-level security,
-- grants and data stay as they are. Services that still said benchmark_runs are the ones
-- released with this migration's predecessors: deploy the services of this release together.

ALTER TABLE benchmark_runs RENAME TO proof_runs;
ALTER INDEX benchmark_runs_pkey RENAME TO proof_runs_pkey;
ALTER INDEX benchmark_runs_org_server_idx RENAME TO proof_runs_org_server_idx;
ALTER INDEX benchmark_runs_one_active_key RENAME TO proof_runs_one_active_key;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_profile_check TO proof_runs_profile_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_parameters_check TO proof_runs_parameters_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_status_check TO proof_runs_status_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_progress_check TO proof_runs_progress_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_phase_check TO proof_runs_phase_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_report_check TO proof_runs_report_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_error_check TO proof_runs_error_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_check1 TO proof_runs_finished_at_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_succeeded_report_check TO proof_runs_succeeded_report_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_finished_report_check TO proof_runs_finished_report_check;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_org_id_fkey TO proof_runs_org_id_fkey;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_requested_by_fkey TO proof_runs_requested_by_fkey;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_agent_id_fkey TO proof_runs_agent_id_fkey;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_cancelled_by_fkey TO proof_runs_cancelled_by_fkey;
ALTER TABLE proof_runs RENAME CONSTRAINT benchmark_runs_org_id_server_id_fkey TO proof_runs_org_id_server_id_fkey;

-- Every gateway LISTENs on spindle_proof_run_changed and wakes the agent of the named server if
-- that agent is waiting for work on it (a new run, or a cancel of the one it runs).
DROP TRIGGER benchmark_runs_notify ON proof_runs;
DROP FUNCTION notify_bench_run_changed();
CREATE FUNCTION notify_proof_run_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
    PERFORM pg_notify('spindle_proof_run_changed',
                      json_build_object('serverId', NEW.server_id, 'runId', NEW.id, 'status', NEW.status)::text);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER proof_runs_notify
  AFTER INSERT OR UPDATE OF status ON proof_runs
  FOR EACH ROW EXECUTE FUNCTION notify_proof_run_changed();

-- The audit log keeps what it recorded: entries written before this say bench_run.requested /
-- bench_run.cancelled, later ones proof_run.*, and the console describes both.

-- What each agent offers for proof runs (its profiles and allowed directories), stored by the
-- gateway in agents.capabilities under "bench" until now, under "proofRuns" from now on.
UPDATE agents SET capabilities = (capabilities - 'bench') || jsonb_build_object('proofRuns', capabilities->'bench')
WHERE capabilities ? 'bench';
