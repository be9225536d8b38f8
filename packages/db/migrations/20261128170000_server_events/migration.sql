-- What happened to a server, for the marks on its charts (issue 27): a policy the agent applied
-- or refused, the agent starting, restarting or changing version. The rows the gateway already
-- writes keep only the latest state (server_policy_status, agents.health, servers.agent_version),
-- so the history is kept here, written by the database itself when that state changes: whoever
-- changes it (the gateway over OpAMP or OTLP, an enrolment, an operator's SQL) leaves the event,
-- in the same transaction, and a rolled-back change leaves none.
--
-- Alert changes (alert_history) and proof runs (benchmark_runs) have their own history already;
-- the console reads those tables for their marks. Other writers add kinds of their own (the
-- rollouts of issue 23 will write `policy.rolled_back`): `kind` is `<subject>.<verb>`, and the
-- console labels the kinds it knows and shows any other by its name.
--
-- Each trigger fires only for the columns that carry the change (UPDATE OF … WHEN …), so the
-- heartbeats and batches that rewrite these rows every few seconds never run the functions.

CREATE TABLE server_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id   uuid NOT NULL,
  -- When it happened (the agent's apply as the gateway received it, the agent's start time).
  at          timestamptz NOT NULL,
  kind        text NOT NULL CHECK (kind ~ '^[a-z][a-z_]*\.[a-z][a-z_]*$'),
  details     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
  recorded_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
-- The charts ask for the events of one to four servers in a window.
CREATE INDEX server_events_org_server_at_idx ON server_events (org_id, server_id, at);
SELECT spindle_protect_tenant_relation('server_events');
GRANT USAGE ON SEQUENCE server_events_id_seq TO spindle_console, spindle_gateway, spindle_worker, spindle_system;

-- The policy layers in force for a hash, as the effective policy recorded them when it was
-- computed ('[]' when the server's effective policy has moved on to another hash since).
CREATE FUNCTION spindle_policy_layers_for(org text, server uuid, policy_hash text) RETURNS jsonb
LANGUAGE sql STABLE AS $fn$
  SELECT COALESCE((SELECT e.layers FROM server_effective_policies e
                   WHERE e.org_id = org AND e.server_id = server AND e.hash = policy_hash), '[]'::jsonb)
$fn$;

-- server_policy_status: `policy.applied` when the applied hash changes to a new one (applied_at
-- moves with it), `policy.failed` when the agent refuses a policy it had not refused before.
CREATE FUNCTION spindle_record_policy_event() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.status = 'applied' AND NEW.applied_hash IS NOT NULL
     AND (TG_OP = 'INSERT' OR OLD.applied_hash IS DISTINCT FROM NEW.applied_hash) THEN
    INSERT INTO server_events (org_id, server_id, at, kind, details)
    VALUES (NEW.org_id, NEW.server_id, COALESCE(NEW.applied_at, now()), 'policy.applied',
      jsonb_build_object('hash', NEW.applied_hash, 'previousHash', CASE WHEN TG_OP = 'UPDATE' THEN OLD.applied_hash END,
        'layers', spindle_policy_layers_for(NEW.org_id, NEW.server_id, NEW.applied_hash)));
  ELSIF NEW.status = 'failed'
     AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'failed' OR OLD.reported_hash IS DISTINCT FROM NEW.reported_hash) THEN
    INSERT INTO server_events (org_id, server_id, at, kind, details)
    VALUES (NEW.org_id, NEW.server_id, COALESCE(NEW.reported_at, now()), 'policy.failed',
      jsonb_build_object('hash', NEW.reported_hash, 'message', NEW.message, 'runningHash', NEW.applied_hash,
        'layers', spindle_policy_layers_for(NEW.org_id, NEW.server_id, COALESCE(NEW.reported_hash, NEW.desired_version_hash))));
  END IF;
  RETURN NULL;
END
$fn$;

CREATE TRIGGER server_policy_status_events_on_insert
  AFTER INSERT ON server_policy_status
  FOR EACH ROW
  WHEN (NEW.status IN ('applied', 'failed'))
  EXECUTE FUNCTION spindle_record_policy_event();

CREATE TRIGGER server_policy_status_events_on_update
  AFTER UPDATE OF status, applied_hash, reported_hash ON server_policy_status
  FOR EACH ROW
  WHEN ((NEW.status = 'applied' AND NEW.applied_hash IS NOT NULL AND OLD.applied_hash IS DISTINCT FROM NEW.applied_hash)
     OR (NEW.status = 'failed' AND (OLD.status IS DISTINCT FROM 'failed' OR OLD.reported_hash IS DISTINCT FROM NEW.reported_hash)))
  EXECUTE FUNCTION spindle_record_policy_event();

-- agents.health carries the agent's process start time (OpAMP ComponentHealth, written by the
-- gateway as RFC 3339): a new one is a start (the first since enrolment) or a restart. The time
-- is the agent's own clock, kept no later than now so a skewed clock cannot mark the future.
CREATE FUNCTION spindle_record_agent_start() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
  previous text := OLD.health->>'startedAt';
BEGIN
  INSERT INTO server_events (org_id, server_id, at, kind, details)
  VALUES (NEW.org_id, NEW.server_id, LEAST((NEW.health->>'startedAt')::timestamptz, now()),
    CASE WHEN previous IS NULL THEN 'agent.started' ELSE 'agent.restarted' END,
    jsonb_build_object('startedAt', NEW.health->>'startedAt', 'previousStartedAt', previous,
      'agentVersion', (SELECT s.agent_version FROM servers s WHERE s.id = NEW.server_id AND s.org_id = NEW.org_id)));
  RETURN NULL;
END
$fn$;

CREATE TRIGGER agents_start_events
  AFTER UPDATE OF health ON agents
  FOR EACH ROW
  WHEN ((NEW.health->>'startedAt') IS NOT NULL AND (OLD.health->>'startedAt') IS DISTINCT FROM (NEW.health->>'startedAt'))
  EXECUTE FUNCTION spindle_record_agent_start();

-- servers.agent_version: set by enrolment, OTLP batches and OpAMP reports; a change from one
-- known version to another is an upgrade (or a downgrade: details say from and to).
CREATE FUNCTION spindle_record_agent_version() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO server_events (org_id, server_id, at, kind, details)
  VALUES (NEW.org_id, NEW.id, now(), 'agent.upgraded', jsonb_build_object('from', OLD.agent_version, 'to', NEW.agent_version));
  RETURN NULL;
END
$fn$;

CREATE TRIGGER servers_agent_version_events
  AFTER UPDATE OF agent_version ON servers
  FOR EACH ROW
  WHEN (OLD.agent_version <> '' AND NEW.agent_version <> '' AND OLD.agent_version <> NEW.agent_version)
  EXECUTE FUNCTION spindle_record_agent_version();

-- The fleet page sorts hostnames, kernels and agent versions as people read them: web-2 before
-- web-10, 6.2 before 6.10 (ICU's numeric ordering). A server without ICU (PGlite) sorts them
-- byte by byte instead, which is still a stable order.
DO $$
BEGIN
  CREATE COLLATION spindle_natural (provider = icu, locale = 'und-u-kn-true');
EXCEPTION WHEN OTHERS THEN
  CREATE COLLATION spindle_natural FROM "C";
END $$;
