-- Defence in depth for tenant isolation (issue 11, defect 11). Every query in the services is
-- already scoped by org_id; this migration makes the database refuse a query that forgets to.
--
-- * Service roles, NOLOGIN: the deployment grants them to its login users (GRANT spindle_console
--   TO console_login) and the service runs its transactions under them. Roles are cluster-wide,
--   so each is created only when missing (many test databases share one cluster).
--     spindle_console  the web console: reads and writes its organisation's rows
--     spindle_gateway  ingest and OpAMP: writes telemetry, reads agents/servers/policies
--     spindle_worker   per-organisation jobs (policy delivery, effective policies)
--     spindle_system   cross-tenant jobs (rollups, retention): the only role whose policy is
--                      USING (true), because a rollup over every organisation's rows is the job
--     spindle_grafana  read-only dashboards: SELECT on telemetry and servers, nothing else
-- * Row-level security, ENABLEd and FORCEd, on every table with an org_id column: a row is
--   visible and writable only when org_id = current_setting('spindle.org_id', true), which the
--   services set per transaction with set_config('spindle.org_id', $1, true). Without it a query
--   sees nothing. Superusers (the embedded `npm start` and the test databases connect as the
--   superuser `postgres`) bypass RLS, so those keep working; the roles are what production uses.
-- * spindle_protect_tenant_table(regclass) is the one way to protect a table, reusable by later
--   migrations; it is applied below to every org_id table that exists when this runs (this
--   migration runs after all others), and packages/db/test/tenant-security.test.ts fails for any
--   org_id table a later migration forgets.
-- * Continuous aggregates and compressed hypertables (TimescaleDB) cannot have RLS; see
--   spindle_protect_tenant_view below. spindle_protect_tenant_relation picks the right wall.

DO $$
DECLARE r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['spindle_console', 'spindle_gateway', 'spindle_worker', 'spindle_system', 'spindle_grafana'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I NOLOGIN', r);
    END IF;
  END LOOP;
END $$;

-- The worker's system jobs switch to spindle_system (SET LOCAL ROLE) for cross-tenant work.
GRANT spindle_system TO spindle_worker;

CREATE OR REPLACE FUNCTION spindle_protect_tenant_table(target regclass) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = target AND attname = 'org_id' AND NOT attisdropped) THEN
    RAISE EXCEPTION 'spindle_protect_tenant_table: % has no org_id column', target;
  END IF;
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', target);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', target);
  EXECUTE format('DROP POLICY IF EXISTS spindle_org_isolation ON %s', target);
  EXECUTE format('DROP POLICY IF EXISTS spindle_cross_tenant ON %s', target);
  EXECUTE format($p$CREATE POLICY spindle_org_isolation ON %s
    USING (org_id = current_setting('spindle.org_id', true))
    WITH CHECK (org_id = current_setting('spindle.org_id', true))$p$, target);
  EXECUTE format('CREATE POLICY spindle_cross_tenant ON %s TO spindle_system USING (true) WITH CHECK (true)', target);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO spindle_console, spindle_worker, spindle_system', target);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE ON %s TO spindle_gateway', target);
  EXECUTE format('GRANT SELECT ON %s TO spindle_grafana', target);
END
$fn$;

-- Relations RLS cannot cover: views, among them TimescaleDB continuous aggregates; hypertables
-- with the columnstore (compression) enabled, which refuse ENABLE ROW LEVEL SECURITY; and raw
-- telemetry tables, which the gateway fills with COPY (refused under row-level security).
-- The console and Grafana may not read them directly; the worker and the cross-tenant system
-- role may, and the gateway writes them and reads back only its authenticated server's rows.
-- The console and Grafana read a security-barrier view of the same name in schema
-- spindle_tenant that filters on spindle.org_id (their login users set
-- search_path = spindle_tenant, public, so the same SQL works in both time-series modes).
CREATE SCHEMA IF NOT EXISTS spindle_tenant;
GRANT USAGE ON SCHEMA spindle_tenant TO spindle_console, spindle_grafana, spindle_worker, spindle_system;

CREATE OR REPLACE FUNCTION spindle_protect_tenant_view(target regclass) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  rel text := (SELECT relname FROM pg_class WHERE oid = target);
  kind "char" := (SELECT relkind FROM pg_class WHERE oid = target);
BEGIN
  EXECUTE format('REVOKE ALL ON %s FROM PUBLIC, spindle_console, spindle_gateway, spindle_grafana', target);
  EXECUTE format('GRANT SELECT ON %s TO spindle_worker, spindle_system', target);
  IF kind IN ('r', 'p') THEN
    -- The gateway writes these (COPY) and reads back its own server's newest rows (deduplicating
    -- scans, replacing lists), always filtered by the org_id and server_id of the authenticated
    -- credential: it is the one service that sees these tables without the view.
    EXECUTE format('GRANT SELECT, INSERT, DELETE ON %s TO spindle_gateway', target);
    EXECUTE format('GRANT INSERT ON %s TO spindle_worker, spindle_system', target);
    EXECUTE format('GRANT UPDATE, DELETE ON %s TO spindle_system', target);
  END IF;
  EXECUTE format($q$CREATE OR REPLACE VIEW spindle_tenant.%I WITH (security_barrier) AS
    SELECT * FROM %s WHERE org_id = current_setting('spindle.org_id', true)$q$, rel, target);
  EXECUTE format('GRANT SELECT ON spindle_tenant.%I TO spindle_console, spindle_grafana, spindle_worker', rel);
END
$fn$;

-- True for a hypertable whose columnstore is enabled (TimescaleDB mode only).
CREATE OR REPLACE FUNCTION spindle_is_columnstore(target regclass) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE result boolean := false;
BEGIN
  IF to_regclass('timescaledb_information.hypertables') IS NOT NULL THEN
    EXECUTE $q$SELECT coalesce(bool_or(compression_enabled), false) FROM timescaledb_information.hypertables
      WHERE format('%I.%I', hypertable_schema, hypertable_name)::regclass = $1$q$ INTO result USING target;
  END IF;
  RETURN result;
END
$fn$;

-- The one call later migrations make for a new tenant relation: RLS where PostgreSQL allows it,
-- the view wall where it does not.
CREATE OR REPLACE FUNCTION spindle_protect_tenant_relation(target regclass) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  -- Views (TimescaleDB continuous aggregates are views in public) run as their owner, which
  -- bypasses RLS, so they get the same wall as materialized views.
  -- Raw telemetry (a time column, no primary key: append-only, written by the gateway with COPY,
  -- which PostgreSQL refuses on tables with row-level security) gets the view wall too.
  -- fragmentation_worst_files, page_cache_top_files and write_opt_files are lists the gateway replaces per server
  -- (DELETE, then COPY), so they are COPY targets despite their primary keys.
  IF (SELECT relkind FROM pg_class WHERE oid = target) IN ('m', 'v') OR spindle_is_columnstore(target)
     OR (SELECT relname FROM pg_class WHERE oid = target) IN ('fragmentation_worst_files', 'page_cache_top_files', 'write_opt_files')
     OR (EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = target AND attname = 'time' AND NOT attisdropped)
         AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = target AND contype = 'p')) THEN
    PERFORM spindle_protect_tenant_view(target);
  ELSE
    PERFORM spindle_protect_tenant_table(target);
  END IF;
END
$fn$;

DO $$
DECLARE t regclass;
BEGIN
  FOR t IN
    SELECT c.oid::regclass FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm', 'v')
    ORDER BY c.relname
  LOOP
    PERFORM spindle_protect_tenant_relation(t);
  END LOOP;
END $$;

-- Grafana reads telemetry only; these relational tables are not for it.
REVOKE ALL ON enrollment_tokens, agents, audit_log FROM spindle_grafana;

-- Tables without org_id. Identity tables (better-auth) and organisation membership are looked up
-- across organisations by design (a user's memberships, an invitation by id), so they are not
-- RLS tables: only the console may touch them. The gateway reads organizations to resolve names.
GRANT SELECT, INSERT, UPDATE, DELETE ON users, sessions, accounts, verifications, organizations, members, invitations
  TO spindle_console;
GRANT SELECT ON organizations TO spindle_gateway, spindle_worker, spindle_system;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO spindle_console, spindle_gateway, spindle_worker, spindle_system;
-- Nobody but the migration owner touches the ledger or the mode record.
REVOKE ALL ON schema_migrations FROM PUBLIC;
GRANT SELECT ON spindle_settings TO spindle_console, spindle_gateway, spindle_worker, spindle_system;

-- Agent credentials (issue 11, defect 5): they expire, and an existing server's identity can be
-- taken over by an enrolment token only with the server's current credential or while an admin
-- has allowed re-enrolment in the console (reenrollment_allowed_until, a short window).
-- Existing credentials get the full lifetime from now, so an upgrade does not cut agents off.
ALTER TABLE agents
  ADD COLUMN credential_expires_at timestamptz NOT NULL DEFAULT now() + interval '90 days',
  ADD COLUMN reenrollment_allowed_until timestamptz;

-- The gateway's two lookups that come before it knows the organisation: an agent by its
-- credential and an enrolment token by its secret. Row-level security would hide both from
-- spindle_gateway, so they are SECURITY DEFINER functions (run as the migration owner) that
-- return only the row the secret's hash names; the rest of each request then runs as
-- spindle_gateway with spindle.org_id set to that row's organisation.
CREATE OR REPLACE FUNCTION spindle_agent_by_credential(hash bytea)
RETURNS TABLE (agent_id uuid, org_id text, server_id uuid, revoked boolean, expired boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
  SELECT a.id, a.org_id, a.server_id, a.revoked_at IS NOT NULL, a.credential_expires_at <= now()
  FROM agents a
  JOIN servers s ON s.id = a.server_id AND s.org_id = a.org_id
  WHERE a.credential_hash = hash
$fn$;

CREATE OR REPLACE FUNCTION spindle_enrollment_token_by_hash(hash bytea)
RETURNS TABLE (token_id uuid, token_hint text, org_id text, expired boolean, revoked boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
  SELECT id, token_hint, org_id, expires_at <= now(), revoked_at IS NOT NULL
  FROM enrollment_tokens WHERE token_hash = hash
$fn$;

REVOKE ALL ON FUNCTION spindle_agent_by_credential(bytea), spindle_enrollment_token_by_hash(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spindle_agent_by_credential(bytea), spindle_enrollment_token_by_hash(bytea) TO spindle_gateway;
