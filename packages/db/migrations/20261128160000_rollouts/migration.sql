-- Staged rollouts (issue 23, docs/policy.md "Rollouts"): a policy change that reaches many servers
-- goes out in waves (a canary, then percentages), each wave waits for APPLIED and a guard window,
-- and a regression rolls the released servers back to the policy they had before.
--
-- How a rollout changes what a server runs, without a second delivery path: the declared state
-- (policy_versions, policy_assignments) takes the change at once, as before; a rollout lists the
-- assignment slots it changed (rollout_slots) with the layer each slot had before. While the
-- rollout is running or paused, every server that is not released in it (never released, or
-- rolled back) merges the slot's old layer instead (spindle_rollout_held_slots below). The
-- worker's effective-policy materialisation applies that, and the gateways push whatever it
-- materialises, exactly as for any other change. When the rollout completes the slots stop
-- applying; when it is aborted the console restores the declared state first.
--
-- The worker drives rollouts (apps/worker/src/rollouts): one transaction per step, the rollout
-- row locked FOR UPDATE SKIP LOCKED, so two workers never advance one wave twice; the unique
-- index on rollout_events is the second wall.

-- Lets a slot point at an exact version of the organisation's own policy.
ALTER TABLE policy_versions ADD CONSTRAINT policy_versions_org_id_id_key UNIQUE (org_id, id);

-- Per organisation; no row means the defaults. On by default: every organisation- or tag-wide
-- change goes out as a rollout unless an owner or admin chooses "Apply now".
CREATE TABLE org_rollout_settings (
  org_id            text PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  rollouts_required boolean NOT NULL DEFAULT true,
  updated_by        text REFERENCES users(id) ON DELETE SET NULL,
  updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE rollouts (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id            text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  -- what started it: a policy version saved, an assignment changed (one target or many servers),
  -- a recommendation applied
  kind              text NOT NULL CHECK (kind IN ('policy_version', 'assignment', 'recommendation')),
  title             text NOT NULL CHECK (length(btrim(title)) BETWEEN 1 AND 300),
  policy_id         uuid,
  policy_version    integer CHECK (policy_version >= 1),
  recommendation_id uuid,
  status            text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'paused', 'completed', 'aborted')),
  -- why it is paused (a guard's reason, or who paused it), or how it ended
  status_reason     text NOT NULL DEFAULT '' CHECK (length(status_reason) <= 4000),
  -- @spindle/domain rolloutPlanSchema: canary, wave percentages, guard window, thresholds
  plan              jsonb NOT NULL CHECK (jsonb_typeof(plan) = 'object'),
  created_by        text REFERENCES users(id) ON DELETE SET NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  CHECK ((status IN ('completed', 'aborted')) = (finished_at IS NOT NULL)),
  UNIQUE (org_id, id),
  FOREIGN KEY (org_id, policy_id) REFERENCES policies (org_id, id) ON DELETE CASCADE
);
CREATE INDEX rollouts_org_status_idx ON rollouts (org_id, status, created_at DESC);
CREATE INDEX rollouts_active_idx ON rollouts (org_id) WHERE status IN ('running', 'paused');

-- The assignment slots a rollout changed, each with the layer it had before (NULL: none).
CREATE TABLE rollout_slots (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id             text NOT NULL,
  rollout_id         uuid NOT NULL,
  scope              text NOT NULL CHECK (scope IN ('organization', 'tag', 'server')),
  tag                text CHECK (tag ~ '^[a-z0-9][a-z0-9._:-]{0,62}$'),
  server_id          uuid,
  before_policy_id   uuid,
  before_version_id  uuid,
  -- the policy the slot holds now (NULL: the change removed the assignment), for the page
  after_policy_id    uuid,
  CHECK (
    (scope = 'organization' AND tag IS NULL AND server_id IS NULL) OR
    (scope = 'tag' AND tag IS NOT NULL AND server_id IS NULL) OR
    (scope = 'server' AND server_id IS NOT NULL AND tag IS NULL)
  ),
  CHECK ((before_policy_id IS NULL) = (before_version_id IS NULL)),
  FOREIGN KEY (org_id, rollout_id) REFERENCES rollouts (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, before_version_id) REFERENCES policy_versions (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX rollout_slots_rollout_idx ON rollout_slots (rollout_id);

CREATE TABLE rollout_waves (
  org_id          text NOT NULL,
  rollout_id      uuid NOT NULL,
  wave            integer NOT NULL CHECK (wave >= 0),          -- 0 is the canary
  label           text NOT NULL CHECK (length(label) BETWEEN 1 AND 40),
  percent         integer CHECK (percent BETWEEN 1 AND 100),    -- NULL for the canary
  -- 1, then one more each time a rolled-back wave is released again (resume)
  attempt         integer NOT NULL DEFAULT 1 CHECK (attempt >= 1),
  state           text NOT NULL DEFAULT 'pending'
                  CHECK (state IN ('pending', 'applying', 'watching', 'holding', 'passed', 'rolled_back')),
  released_at     timestamptz,
  -- the last APPLIED of its servers: the guard window starts here
  applied_at      timestamptz,
  guard_ends_at   timestamptz,
  decided_at      timestamptz,
  hold_reason     text NOT NULL DEFAULT '' CHECK (length(hold_reason) <= 4000),
  -- @spindle/domain guardReadingSchema[]: the newest reading of every guard
  readings        jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(readings) = 'array'),
  readings_at     timestamptz,
  -- how long the newest window-end evaluation took (the 10,000-server benchmark reads it)
  evaluation_ms   double precision,
  overridden_by   text REFERENCES users(id) ON DELETE SET NULL,
  overridden_at   timestamptz,
  PRIMARY KEY (rollout_id, wave),
  FOREIGN KEY (org_id, rollout_id) REFERENCES rollouts (org_id, id) ON DELETE CASCADE
);

CREATE TABLE rollout_servers (
  org_id                 text NOT NULL,
  rollout_id             uuid NOT NULL,
  server_id              uuid NOT NULL,
  wave                   integer NOT NULL,
  -- held: runs the previous policy; pushed: released, not confirmed; applied: confirmed;
  -- failed: the agent refused it; rolled_back: back on the previous policy
  state                  text NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'pushed', 'applied', 'failed', 'rolled_back')),
  -- the effective policy hash before the change and the one the plan expected after it
  before_hash            text CHECK (before_hash ~ '^[0-9a-f]{64}$'),
  planned_hash           text CHECK (planned_hash ~ '^[0-9a-f]{64}$'),
  -- what the server must run now (after a release or a rollback); NULL until the worker has
  -- materialised it, which it does in the same transaction as the step
  target_hash            text CHECK (target_hash ~ '^[0-9a-f]{64}$'),
  released_at            timestamptz,
  applied_at             timestamptz,
  failed_message         text NOT NULL DEFAULT '',
  rolled_back_at         timestamptz,
  rollback_confirmed_at  timestamptz,
  PRIMARY KEY (rollout_id, server_id),
  FOREIGN KEY (org_id, rollout_id) REFERENCES rollouts (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (rollout_id, wave) REFERENCES rollout_waves (rollout_id, wave) ON DELETE CASCADE,
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX rollout_servers_org_server_idx ON rollout_servers (org_id, server_id);
CREATE INDEX rollout_servers_released_idx ON rollout_servers (rollout_id, server_id) WHERE state IN ('pushed', 'applied', 'failed');

-- The timeline of a rollout: every step, guard decision and user action.
CREATE TABLE rollout_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      text NOT NULL,
  rollout_id  uuid NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  kind        text NOT NULL CHECK (kind ~ '^[a-z][a-z_]*\.[a-z][a-z_]*$'),
  wave        integer,
  attempt     integer,
  actor_id    text REFERENCES users(id) ON DELETE SET NULL,
  message     text NOT NULL CHECK (length(message) BETWEEN 1 AND 4000),
  details     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
  FOREIGN KEY (org_id, rollout_id) REFERENCES rollouts (org_id, id) ON DELETE CASCADE
);
CREATE INDEX rollout_events_rollout_idx ON rollout_events (rollout_id, id);
CREATE INDEX rollout_events_org_kind_idx ON rollout_events (org_id, id) WHERE kind IN ('rollout.completed', 'rollout.rolled_back');
-- A step happens once per wave attempt, whatever two workers do at the same moment.
CREATE UNIQUE INDEX rollout_events_step_once ON rollout_events (rollout_id, coalesce(wave, -1), coalesce(attempt, 0), kind)
  WHERE kind IN ('wave.released', 'wave.applied', 'wave.passed', 'rollout.completed');

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['org_rollout_settings', 'rollouts', 'rollout_slots', 'rollout_waves', 'rollout_servers', 'rollout_events'] LOOP
    PERFORM spindle_protect_tenant_relation(t::regclass);
    EXECUTE format('REVOKE ALL ON %I FROM spindle_gateway, spindle_grafana', t);
  END LOOP;
END $$;
GRANT USAGE ON SEQUENCE rollout_slots_id_seq, rollout_events_id_seq TO spindle_console, spindle_worker, spindle_system;

-- The slots a rollout holds at their previous layer for each of `server_ids`: those of running or
-- paused rollouts in which the server is not released (never released, or rolled back). The
-- effective policy of a server merges these layers in place of the current assignment at the
-- same slot (@spindle/policy assignmentsDuringRollouts). Invoker's rights: row-level security
-- applies, so a caller sees only its own organisation's rollouts.
CREATE FUNCTION spindle_rollout_held_slots(org text, server_ids uuid[])
RETURNS TABLE (server_id uuid, rollout_id uuid, scope text, tag text, slot_server_id uuid, before_policy_id uuid, before_version_id uuid)
LANGUAGE sql STABLE AS $fn$
  SELECT s.id, r.id, sl.scope, sl.tag, sl.server_id, sl.before_policy_id, sl.before_version_id
  FROM rollouts r
  JOIN rollout_slots sl ON sl.org_id = r.org_id AND sl.rollout_id = r.id
  CROSS JOIN unnest(server_ids) AS s(id)
  WHERE r.org_id = org AND r.status IN ('running', 'paused')
    AND (sl.scope <> 'server' OR sl.server_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM rollout_servers rs
                    WHERE rs.rollout_id = r.id AND rs.server_id = s.id AND rs.state IN ('pushed', 'applied', 'failed'))
$fn$;
GRANT EXECUTE ON FUNCTION spindle_rollout_held_slots(text, uuid[]) TO spindle_console, spindle_worker, spindle_system;

-- A rollout step changes what servers must run: the same announcement as a policy change, so
-- every effective-policy materialiser recomputes the organisation (the worker also does it in
-- the step's own transaction). Only state changes that move a server, or a rollout's status.
-- One statement may move thousands of servers (a wave of a large fleet): announce once per
-- organisation and statement, not once per row.
CREATE FUNCTION notify_rollout_servers_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE moved_org text;
BEGIN
  FOR moved_org IN
    SELECT DISTINCT n.org_id FROM new_rows n JOIN old_rows o ON o.rollout_id = n.rollout_id AND o.server_id = n.server_id
    WHERE o.state IS DISTINCT FROM n.state
  LOOP
    PERFORM pg_notify('spindle_policy_changed', json_build_object('orgId', moved_org)::text);
  END LOOP;
  RETURN NULL;
END;
$$;
CREATE TRIGGER rollout_servers_notify
  AFTER UPDATE ON rollout_servers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_rollout_servers_moved();
CREATE TRIGGER rollouts_status_notify
  AFTER UPDATE OF status ON rollouts
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION notify_policy_changed();

-- Wakes the rollout driver when a rollout is created or a person acts on it (pause, resume,
-- override, roll back), so it does not wait for its next tick.
CREATE FUNCTION notify_rollout_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('spindle_rollout_changed', json_build_object('orgId', NEW.org_id, 'rolloutId', NEW.id)::text);
  RETURN NULL;
END;
$$;
CREATE TRIGGER rollouts_changed_notify
  AFTER INSERT OR UPDATE ON rollouts
  FOR EACH ROW EXECUTE FUNCTION notify_rollout_changed();
