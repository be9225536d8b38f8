-- A/B proof runs (issue 7, section 3): a run of `spindle-agent bench` requested from the console
-- for one server, delivered to its agent by the gateway, and its progress and report stored here.
-- Plain relational SQL: the same on the TimescaleDB and the plain path. Mirrors the BenchmarkRun
-- model of prisma/schema.prisma. The protocol is docs/agent-protocol.md, "Proof runs".

CREATE TABLE benchmark_runs (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id         text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id      uuid NOT NULL,
  requested_by   text REFERENCES users(id) ON DELETE SET NULL,
  -- Profile name as the agent's bench engine lists it (sqlio, fileserver, oltp, pgbench).
  profile        text NOT NULL CHECK (profile ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  -- The request as the agent receives it: paths, size and time limits, latency limit. The
  -- console validates it with zod and the agent validates it again (it refuses other paths).
  parameters     jsonb NOT NULL CHECK (jsonb_typeof(parameters) = 'object'),
  status         text NOT NULL DEFAULT 'queued'
                 CHECK (status IN ('queued', 'running', 'cancelling', 'cancelled', 'succeeded', 'failed')),
  -- The agent that took the run (the server's agent at that time); NULL while queued.
  agent_id       uuid REFERENCES agents(id) ON DELETE SET NULL,
  -- Progress as the agent reports it: fraction done (0..1) and the phase it is in; NULL until reported.
  progress       double precision CHECK (progress >= 0 AND progress <= 1),
  phase          text CHECK (length(phase) <= 200),
  report         jsonb CHECK (jsonb_typeof(report) = 'object'),
  error          text CHECK (length(error) <= 2000),
  created_at     timestamptz NOT NULL DEFAULT now(),
  started_at     timestamptz,
  -- Last word from the agent about this run; a running run silent for too long is failed.
  heartbeat_at   timestamptz,
  cancel_requested_at timestamptz,
  cancelled_by   text REFERENCES users(id) ON DELETE SET NULL,
  finished_at    timestamptz,
  CHECK ((status = 'succeeded') = (report IS NOT NULL)),
  CHECK ((status IN ('cancelled', 'succeeded', 'failed')) = (finished_at IS NOT NULL)),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX benchmark_runs_org_server_idx ON benchmark_runs (org_id, server_id, created_at DESC);
-- One active run per server: the agent runs one at a time, so the console cannot queue a second.
CREATE UNIQUE INDEX benchmark_runs_one_active_key ON benchmark_runs (server_id)
  WHERE status IN ('queued', 'running', 'cancelling');

-- Every gateway LISTENs on spindle_bench_run_changed and wakes the agent of the named server if
-- that agent is waiting for work on it (a new run, or a cancel of the one it runs).
CREATE FUNCTION notify_bench_run_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
    PERFORM pg_notify('spindle_bench_run_changed',
                      json_build_object('serverId', NEW.server_id, 'runId', NEW.id, 'status', NEW.status)::text);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER benchmark_runs_notify
  AFTER INSERT OR UPDATE OF status ON benchmark_runs
  FOR EACH ROW EXECUTE FUNCTION notify_bench_run_changed();
