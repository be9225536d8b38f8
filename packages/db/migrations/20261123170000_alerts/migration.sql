-- Alerting (issue 8, docs/alerts.md): rules, the state of every rule × subject, the history of
-- state changes, silences, and each organisation's evaluation progress. Plain SQL, the same in
-- both time-series modes: the worker evaluates rules on the 1-minute aggregates, which have the
-- same names and columns in either mode. Notification channels and their outbox are separate.
--
-- A subject is what a rule's state is kept for: a server, and within it a component ('' for the
-- server itself, the device name for per-device signals, the scanned root for fragmentation).

CREATE TABLE alert_rules (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id          text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  -- The default rule this row was seeded from (@spindle/domain defaultAlertRules); NULL for a
  -- custom rule. Unique per organisation, so seeding twice (two workers, a restart) adds nothing.
  default_key     text CHECK (default_key ~ '^[a-z][a-z0-9_]{0,62}$'),
  name            text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 120),
  enabled         boolean NOT NULL DEFAULT true,
  -- An alert signal id (@spindle/domain alertSignals): a catalogue metric or a signal derived
  -- from catalogue metrics; the worker skips (and logs) a rule whose signal it does not know.
  signal          text NOT NULL CHECK (signal ~ '^[a-z][a-z0-9_.]{0,99}$'),
  aggregation     text NOT NULL CHECK (aggregation IN ('avg', 'sum', 'max', 'min', 'last', 'p50', 'p90', 'p95', 'p99')),
  comparison      text NOT NULL CHECK (comparison IN ('>', '>=', '<', '<=')),
  threshold       double precision NOT NULL CHECK (threshold = threshold AND abs(threshold) < 'Infinity'),
  -- The span of 1-minute buckets one evaluation aggregates.
  window_seconds  integer NOT NULL CHECK (window_seconds BETWEEN 60 AND 604800),
  -- The condition must hold this long before pending becomes firing, and be clear this long
  -- before firing resolves (hysteresis: one flapping minute neither fires nor resolves).
  for_seconds     integer NOT NULL DEFAULT 0 CHECK (for_seconds BETWEEN 0 AND 86400),
  resolve_seconds integer NOT NULL DEFAULT 0 CHECK (resolve_seconds BETWEEN 0 AND 86400),
  -- A subject that sent data before and has sent none for this long enters no_data.
  no_data_seconds integer NOT NULL DEFAULT 600 CHECK (no_data_seconds BETWEEN 60 AND 604800),
  scope           text NOT NULL CHECK (scope IN ('organization', 'tag', 'server', 'device')),
  tag             text CHECK (tag ~ '^[a-z0-9][a-z0-9._:-]{0,62}$'),
  server_id       uuid,
  device          text CHECK (length(device) BETWEEN 1 AND 200),
  severity        text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  note            text NOT NULL DEFAULT '' CHECK (length(note) <= 4000),
  created_by      text REFERENCES users(id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      text REFERENCES users(id) ON DELETE SET NULL,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CHECK (CASE scope
    WHEN 'organization' THEN tag IS NULL AND server_id IS NULL AND device IS NULL
    WHEN 'tag'          THEN tag IS NOT NULL AND server_id IS NULL AND device IS NULL
    WHEN 'server'       THEN tag IS NULL AND server_id IS NOT NULL AND device IS NULL
    WHEN 'device'       THEN tag IS NULL AND server_id IS NOT NULL AND device IS NOT NULL
  END),
  UNIQUE (org_id, id),
  UNIQUE (org_id, default_key),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);

-- Silences and maintenance windows: transitions of matching subjects between starts_at and
-- ends_at are still recorded in alert_history, marked with the silence, and not notified.
CREATE TABLE alert_silences (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id       text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  rule_id      uuid,  -- NULL: every rule
  scope        text NOT NULL CHECK (scope IN ('organization', 'tag', 'server', 'device')),
  tag          text CHECK (tag ~ '^[a-z0-9][a-z0-9._:-]{0,62}$'),
  server_id    uuid,
  device       text CHECK (length(device) BETWEEN 1 AND 200),
  starts_at    timestamptz NOT NULL,
  ends_at      timestamptz NOT NULL,
  comment      text NOT NULL CHECK (length(btrim(comment)) BETWEEN 1 AND 1000),
  created_by   text REFERENCES users(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  cancelled_by text REFERENCES users(id) ON DELETE SET NULL,
  CHECK (ends_at > starts_at),
  CHECK (cancelled_by IS NULL OR cancelled_at IS NOT NULL),
  CHECK (CASE scope
    WHEN 'organization' THEN tag IS NULL AND server_id IS NULL AND device IS NULL
    WHEN 'tag'          THEN tag IS NOT NULL AND server_id IS NULL AND device IS NULL
    WHEN 'server'       THEN tag IS NULL AND server_id IS NOT NULL AND device IS NULL
    WHEN 'device'       THEN tag IS NULL AND server_id IS NOT NULL AND device IS NOT NULL
  END),
  UNIQUE (org_id, id),
  FOREIGN KEY (org_id, rule_id) REFERENCES alert_rules (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX alert_silences_org_ends_idx ON alert_silences (org_id, ends_at);

-- The current state of each rule × subject the rule has seen. Written only when something in it
-- changes, so a quiet fleet costs no writes per evaluation.
CREATE TABLE alert_states (
  org_id          text NOT NULL,
  rule_id         uuid NOT NULL,
  server_id       uuid NOT NULL,
  component       text NOT NULL DEFAULT '',
  state           text NOT NULL CHECK (state IN ('ok', 'pending', 'firing', 'no_data')),
  state_since     timestamptz NOT NULL,
  -- Start of the current run of evaluations with the condition true (pending → firing after
  -- for_seconds), and of the current run with it false while firing (resolve after resolve_seconds).
  condition_since timestamptz,
  clear_since     timestamptz,
  value           double precision,  -- the value of the evaluation that last changed this row
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (rule_id, server_id, component),
  FOREIGN KEY (org_id, rule_id) REFERENCES alert_rules (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX alert_states_org_state_idx ON alert_states (org_id, state);

-- One row per state change of a rule × subject. `at` is the evaluation tick (a multiple of the
-- evaluation interval), so a tick evaluated twice (two workers, a restart) cannot add a second
-- row: the unique key refuses it. Rule name and severity are copied so history reads the same
-- after the rule is edited or deleted.
CREATE TABLE alert_history (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id      text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  rule_id     uuid REFERENCES alert_rules(id) ON DELETE SET NULL,
  rule_name   text NOT NULL,
  severity    text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  server_id   uuid NOT NULL,
  component   text NOT NULL DEFAULT '',
  at          timestamptz NOT NULL,
  from_state  text NOT NULL CHECK (from_state IN ('ok', 'pending', 'firing', 'no_data')),
  to_state    text NOT NULL CHECK (to_state IN ('ok', 'pending', 'firing', 'no_data')),
  value       double precision,  -- NULL for no_data (nothing measured)
  threshold   double precision NOT NULL,
  comparison  text NOT NULL CHECK (comparison IN ('>', '>=', '<', '<=')),
  silenced_by uuid REFERENCES alert_silences(id) ON DELETE SET NULL,
  CHECK (from_state <> to_state),
  UNIQUE (rule_id, server_id, component, at),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX alert_history_org_at_idx ON alert_history (org_id, at DESC);

-- Per organisation: the newest evaluation tick done (a second evaluation of the same tick does
-- nothing) and which version of the default rules was seeded (new defaults reach existing
-- organisations; a default the organisation deleted comes back only with a new version).
CREATE TABLE alert_evaluation_progress (
  org_id           text PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  evaluated_at     timestamptz,
  defaults_version integer NOT NULL DEFAULT 0 CHECK (defaults_version >= 0)
);

SELECT spindle_protect_tenant_relation('alert_rules');
SELECT spindle_protect_tenant_relation('alert_silences');
SELECT spindle_protect_tenant_relation('alert_states');
SELECT spindle_protect_tenant_relation('alert_history');
SELECT spindle_protect_tenant_relation('alert_evaluation_progress');
