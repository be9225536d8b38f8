-- A proof run that stops early (cancelled, failed, the agent stopped) keeps the passes it
-- finished: the agent posts its partial report (complete: false) with the outcome, and the
-- console shows the per-pass values with no change stated (issue 30, docs/gains.md "Proof
-- runs"). A succeeded run still needs its report; a run in progress still has none.
ALTER TABLE benchmark_runs
  DROP CONSTRAINT benchmark_runs_check,
  ADD CONSTRAINT benchmark_runs_succeeded_report_check CHECK (status <> 'succeeded' OR report IS NOT NULL),
  ADD CONSTRAINT benchmark_runs_finished_report_check
    CHECK (report IS NULL OR status IN ('succeeded', 'failed', 'cancelled'));
