-- Grafana logins bound to their organisation by who they are, not by a setting (issue 25, H1).
--
-- Until now a Grafana login carried its organisation as a role default, spindle.org_id, and the
-- row-level security policies and spindle_tenant views compared org_id with
-- current_setting('spindle.org_id'). Grafana lets a Viewer send any SQL to its datasource, and any
-- session may change a custom setting (set_config), so a login could read every organisation.
-- The ids were also readable by everyone in pg_roles.rolconfig.
--
-- Now:
-- * spindle_private.grafana_logins maps a login (session_user, which a session cannot change
--   without being a superuser) to its organisation. Only the migration owner reads or writes it,
--   through spindle_bind_grafana_login(login, org) and spindle_unbind_grafana_login(login).
-- * spindle_grafana_org() (SECURITY DEFINER) answers the calling login's organisation and
--   nothing else; it is the only function spindle_grafana may run with another role's rights.
-- * Tables with row-level security get two policies for spindle_grafana: a permissive one that
--   shows the bound organisation's rows, and a RESTRICTIVE one that ANDs every other policy
--   (the services' spindle.org_id one included) with "the bound organisation, read only". A
--   Grafana login therefore sees its organisation whatever the session sets, and nothing when
--   the login is not bound. The services keep their per-transaction spindle.org_id: they are
--   trusted code, and their policies do not change (nor their plans).
-- * Relations behind the view wall (raw telemetry, continuous aggregates) get a second view in
--   schema spindle_grafana_views, filtered on spindle_grafana_org(); spindle_grafana loses the
--   spindle_tenant views (filtered on the setting) and that schema. A bound login's search_path
--   is spindle_grafana_views, public, so the dashboards' SQL is unchanged.
-- * On TimescaleDB a real-time continuous aggregate calls _timescaledb_functions.cagg_watermark,
--   which checks that the *calling* role may SELECT the aggregate itself. Functions in a view run
--   as the caller, so a real login (spindle_console, a Grafana login) reading the filtered view
--   was refused ("permission denied for materialized view disk_io_1m"); only sessions of a
--   superuser (the tests) got through. The walls now read the aggregate's own definition with the
--   watermark taken through spindle_private.cagg_watermark (SECURITY DEFINER; a watermark is a
--   timestamp, not tenant data), so neither role needs the unfiltered aggregate.
-- * spindle_protect_tenant_relation does all of this for relations added later, and the
--   migration runner calls spindle_protect_new_tenant_relations() after every migration, so a
--   tenant relation a later migration forgets to protect is protected anyway (and named in
--   packages/db/test/tenant-security.test.ts when it is not).

CREATE SCHEMA IF NOT EXISTS spindle_private;
REVOKE ALL ON SCHEMA spindle_private FROM PUBLIC;

CREATE TABLE spindle_private.grafana_logins (
  login    name PRIMARY KEY,
  org_id   text NOT NULL REFERENCES public.organizations (id) ON DELETE CASCADE,
  bound_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON spindle_private.grafana_logins FROM PUBLIC;

-- The calling login's organisation, or NULL. session_user, not current_user: SET ROLE changes
-- the latter; only a superuser session can change the former.
CREATE OR REPLACE FUNCTION spindle_grafana_org() RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
  SELECT org_id FROM spindle_private.grafana_logins WHERE login = session_user
$fn$;
REVOKE ALL ON FUNCTION spindle_grafana_org() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spindle_grafana_org() TO spindle_grafana;

CREATE SCHEMA IF NOT EXISTS spindle_grafana_views;
REVOKE ALL ON SCHEMA spindle_grafana_views FROM PUBLIC;
GRANT USAGE ON SCHEMA spindle_grafana_views TO spindle_grafana;
REVOKE ALL ON SCHEMA spindle_tenant FROM spindle_grafana;

-- Binds `login` to organisation `org` and sets its session defaults (run as the migration owner,
-- which has CREATEROLE). Refuses logins for which a binding would mean nothing: a superuser, a
-- BYPASSRLS or CREATEROLE role, or one holding another service's role.
CREATE OR REPLACE FUNCTION spindle_bind_grafana_login(login name, org text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  r pg_roles%ROWTYPE;
  other text;
BEGIN
  SELECT * INTO r FROM pg_roles WHERE rolname = login;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'there is no role %', login
      USING HINT = format('create it first: CREATE ROLE %I LOGIN PASSWORD ''…'' IN ROLE spindle_grafana', login);
  END IF;
  IF r.rolsuper OR r.rolbypassrls OR r.rolcreaterole THEN
    RAISE EXCEPTION 'role % is a superuser or has BYPASSRLS or CREATEROLE: it could read or reach every organisation', login
      USING HINT = 'give Grafana a login of its own: CREATE ROLE … LOGIN PASSWORD ''…'' IN ROLE spindle_grafana';
  END IF;
  IF NOT r.rolcanlogin OR NOT pg_has_role(login, 'spindle_grafana', 'MEMBER') THEN
    RAISE EXCEPTION 'role % must be a LOGIN member of spindle_grafana', login
      USING HINT = format('ALTER ROLE %I LOGIN; GRANT spindle_grafana TO %I;', login, login);
  END IF;
  FOREACH other IN ARRAY ARRAY['spindle_console', 'spindle_gateway', 'spindle_worker', 'spindle_system'] LOOP
    IF pg_has_role(login, other, 'MEMBER') THEN
      RAISE EXCEPTION 'role % also holds %, which may set any organisation; a Grafana login must hold only spindle_grafana', login, other;
    END IF;
  END LOOP;
  IF NOT EXISTS (SELECT 1 FROM public.organizations WHERE id = org) THEN
    RAISE EXCEPTION 'there is no organisation with id %', org USING HINT = 'the id is in the console''s URL and in organizations.id';
  END IF;
  INSERT INTO spindle_private.grafana_logins (login, org_id) VALUES (login, org)
  ON CONFLICT ON CONSTRAINT grafana_logins_pkey DO UPDATE SET org_id = EXCLUDED.org_id, bound_at = now();
  EXECUTE format('ALTER ROLE %I SET role = %L', login, 'spindle_grafana');
  EXECUTE format('ALTER ROLE %I SET search_path = spindle_grafana_views, public', login);
  EXECUTE format('ALTER ROLE %I RESET spindle.org_id', login);
  EXECUTE format('ALTER ROLE %I IN DATABASE %I RESET spindle.org_id', login, current_database());
END
$fn$;

CREATE OR REPLACE FUNCTION spindle_unbind_grafana_login(login name) RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $fn$
  DELETE FROM spindle_private.grafana_logins WHERE grafana_logins.login = spindle_unbind_grafana_login.login
$fn$;

-- The Grafana wall of a table with row-level security.
CREATE OR REPLACE FUNCTION spindle_bind_tenant_table_to_grafana_login(target regclass) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('DROP POLICY IF EXISTS spindle_grafana_login ON %s', target);
  EXECUTE format('DROP POLICY IF EXISTS spindle_grafana_login_only ON %s', target);
  EXECUTE format($p$CREATE POLICY spindle_grafana_login ON %s FOR SELECT TO spindle_grafana
    USING (org_id = (SELECT spindle_grafana_org()))$p$, target);
  EXECUTE format($p$CREATE POLICY spindle_grafana_login_only ON %s AS RESTRICTIVE FOR ALL TO spindle_grafana
    USING (org_id = (SELECT spindle_grafana_org())) WITH CHECK (false)$p$, target);
END
$fn$;

-- The watermark of a real-time continuous aggregate, read as the owner (see the header); only
-- where TimescaleDB is installed (plain PostgreSQL has no aggregates to read).
GRANT USAGE ON SCHEMA spindle_private TO spindle_console, spindle_grafana, spindle_worker, spindle_system;
DO $$
BEGIN
  IF to_regnamespace('_timescaledb_functions') IS NOT NULL THEN
    CREATE OR REPLACE FUNCTION spindle_private.cagg_watermark(mat_hypertable_id integer) RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS 'SELECT _timescaledb_functions.cagg_watermark(mat_hypertable_id)';
    REVOKE ALL ON FUNCTION spindle_private.cagg_watermark(integer) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION spindle_private.cagg_watermark(integer) TO spindle_console, spindle_grafana, spindle_worker, spindle_system;
  END IF;
END $$;

-- What a wall selects from: the relation itself, or, for a TimescaleDB continuous aggregate, its
-- definition with the watermark read through spindle_private.cagg_watermark. A migration that
-- changes an aggregate calls spindle_protect_tenant_relation on it again.
CREATE OR REPLACE FUNCTION spindle_tenant_source(target regclass) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = public, pg_catalog, pg_temp AS $fn$
DECLARE
  definition text;
  is_cagg boolean := false;
BEGIN
  IF to_regclass('_timescaledb_catalog.continuous_agg') IS NOT NULL THEN
    EXECUTE $q$SELECT EXISTS (SELECT 1 FROM _timescaledb_catalog.continuous_agg
      WHERE format('%I.%I', user_view_schema, user_view_name)::regclass = $1)$q$ INTO is_cagg USING target;
  END IF;
  IF NOT is_cagg THEN
    RETURN target::text;
  END IF;
  definition := rtrim(pg_get_viewdef(target, true), E'; \n');
  IF position('_timescaledb_functions.cagg_watermark(' IN definition) = 0 THEN
    RETURN target::text; -- materialized only: no watermark, the aggregate's own table is read
  END IF;
  RETURN '(' || replace(definition, '_timescaledb_functions.cagg_watermark(', 'spindle_private.cagg_watermark(') || ')';
END
$fn$;

-- The Grafana wall of a relation behind the view wall: its own filtered view. `readable` says
-- whether spindle_grafana may select from it.
CREATE OR REPLACE FUNCTION spindle_bind_tenant_view_to_grafana_login(target regclass, readable boolean) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE rel text := (SELECT relname FROM pg_class WHERE oid = target);
BEGIN
  EXECUTE format($q$CREATE OR REPLACE VIEW spindle_grafana_views.%I WITH (security_barrier) AS
    SELECT * FROM %s AS source WHERE org_id = (SELECT spindle_grafana_org())$q$, rel, spindle_tenant_source(target));
  EXECUTE format('REVOKE ALL ON spindle_grafana_views.%I FROM PUBLIC', rel);
  IF readable THEN
    EXECUTE format('GRANT SELECT ON spindle_grafana_views.%I TO spindle_grafana', rel);
  END IF;
  IF to_regclass(format('spindle_tenant.%I', rel)) IS NOT NULL THEN
    EXECUTE format('REVOKE ALL ON spindle_tenant.%I FROM spindle_grafana', rel);
  END IF;
END
$fn$;

-- The table wall, as in 20261123130000_tenant_security, plus the Grafana login's policies.
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
  PERFORM spindle_bind_tenant_table_to_grafana_login(target);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO spindle_console, spindle_worker, spindle_system', target);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE ON %s TO spindle_gateway', target);
  EXECUTE format('GRANT SELECT ON %s TO spindle_grafana', target);
END
$fn$;

-- The view wall, as in 20261123130000_tenant_security, with Grafana's view in
-- spindle_grafana_views instead of the spindle_tenant one.
CREATE OR REPLACE FUNCTION spindle_protect_tenant_view(target regclass) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  rel text := (SELECT relname FROM pg_class WHERE oid = target);
  kind "char" := (SELECT relkind FROM pg_class WHERE oid = target);
BEGIN
  EXECUTE format('REVOKE ALL ON %s FROM PUBLIC, spindle_console, spindle_gateway, spindle_grafana', target);
  EXECUTE format('GRANT SELECT ON %s TO spindle_worker, spindle_system', target);
  IF kind IN ('r', 'p') THEN
    EXECUTE format('GRANT SELECT, INSERT, DELETE ON %s TO spindle_gateway', target);
    EXECUTE format('GRANT INSERT ON %s TO spindle_worker, spindle_system', target);
    EXECUTE format('GRANT UPDATE, DELETE ON %s TO spindle_system', target);
  END IF;
  EXECUTE format($q$CREATE OR REPLACE VIEW spindle_tenant.%I WITH (security_barrier) AS
    SELECT * FROM %s AS source WHERE org_id = current_setting('spindle.org_id', true)$q$, rel, spindle_tenant_source(target));
  EXECUTE format('GRANT SELECT ON spindle_tenant.%I TO spindle_console, spindle_worker', rel);
  PERFORM spindle_bind_tenant_view_to_grafana_login(target, true);
END
$fn$;

-- Whether a tenant relation has both walls: forced row-level security with the services' and
-- Grafana's policies, or the view wall (no direct reads by the console or Grafana, a
-- spindle_tenant view, a spindle_grafana_views view).
CREATE OR REPLACE FUNCTION spindle_tenant_relation_protected(target regclass) RETURNS boolean
LANGUAGE sql STABLE AS $fn$
  SELECT
    (c.relkind IN ('r', 'p') AND c.relrowsecurity AND c.relforcerowsecurity
      AND (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid
             AND p.polname IN ('spindle_org_isolation', 'spindle_grafana_login', 'spindle_grafana_login_only')) = 3)
    OR (NOT has_table_privilege('spindle_console', c.oid, 'SELECT')
      AND NOT has_table_privilege('spindle_grafana', c.oid, 'SELECT')
      AND to_regclass(format('spindle_tenant.%I', c.relname)) IS NOT NULL
      AND NOT has_table_privilege('spindle_grafana', to_regclass(format('spindle_tenant.%I', c.relname)), 'SELECT')
      AND to_regclass(format('spindle_grafana_views.%I', c.relname)) IS NOT NULL)
  FROM pg_class c WHERE c.oid = target
$fn$;

-- Protects every tenant relation (schema public, an org_id column) that lacks a wall, and names
-- them. The migration runner calls it after each migration.
CREATE OR REPLACE FUNCTION spindle_protect_new_tenant_relations() RETURNS text[]
LANGUAGE plpgsql AS $fn$
DECLARE
  t regclass;
  protected text[] := '{}';
BEGIN
  FOR t IN
    SELECT c.oid::regclass FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm', 'v') AND NOT spindle_tenant_relation_protected(c.oid)
    ORDER BY c.relname
  LOOP
    PERFORM spindle_protect_tenant_relation(t);
    protected := protected || t::text;
  END LOOP;
  RETURN protected;
END
$fn$;

-- Every relation protected so far: add Grafana's wall, keeping what spindle_grafana may read
-- (earlier migrations revoked it from credentials, notification channels, digests…).
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT c.oid::regclass AS rel, c.relname, c.relrowsecurity AS rls FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm', 'v')
    ORDER BY c.relname
  LOOP
    IF t.rls THEN
      PERFORM spindle_bind_tenant_table_to_grafana_login(t.rel);
    ELSIF to_regclass(format('spindle_tenant.%I', t.relname)) IS NOT NULL THEN
      PERFORM spindle_bind_tenant_view_to_grafana_login(t.rel,
        has_table_privilege('spindle_grafana', to_regclass(format('spindle_tenant.%I', t.relname)), 'SELECT'));
      -- The console's view of a continuous aggregate, rebuilt over the aggregate's definition.
      IF spindle_tenant_source(t.rel) <> t.rel::text THEN
        EXECUTE format($q$CREATE OR REPLACE VIEW spindle_tenant.%I WITH (security_barrier) AS
          SELECT * FROM %s AS source WHERE org_id = current_setting('spindle.org_id', true)$q$, t.relname, spindle_tenant_source(t.rel));
      END IF;
    END IF;
  END LOOP;
END $$;
-- Whatever is still unprotected now gets both walls.
SELECT spindle_protect_new_tenant_relations();

-- Logins bound the old way (ALTER ROLE … SET spindle.org_id) keep their organisation, now bound
-- to who they are, and lose the setting (which showed every organisation's id to everyone).
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT DISTINCT rol.rolname, substr(cfg, length('spindle.org_id=') + 1) AS org
    FROM pg_db_role_setting s
    JOIN pg_roles rol ON rol.oid = s.setrole
    CROSS JOIN LATERAL unnest(s.setconfig) AS cfg
    WHERE cfg LIKE 'spindle.org_id=%'
      AND s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
      AND pg_has_role(rol.oid, 'spindle_grafana', 'MEMBER')
  LOOP
    IF NOT EXISTS (SELECT 1 FROM organizations WHERE id = r.org) THEN
      RAISE WARNING 'Grafana login % was set to organisation %, which does not exist here: not bound', r.rolname, r.org;
      CONTINUE;
    END IF;
    BEGIN
      PERFORM spindle_bind_grafana_login(r.rolname, r.org);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'Grafana login % not bound to %: %; bind it with SELECT spindle_bind_grafana_login(%L, %L)',
        r.rolname, r.org, SQLERRM, r.rolname, r.org;
    END;
  END LOOP;
END $$;

-- Only the migration owner runs the functions that change walls and bindings.
REVOKE ALL ON FUNCTION spindle_bind_grafana_login(name, text), spindle_unbind_grafana_login(name),
  spindle_bind_tenant_table_to_grafana_login(regclass), spindle_bind_tenant_view_to_grafana_login(regclass, boolean),
  spindle_protect_tenant_table(regclass), spindle_protect_tenant_view(regclass), spindle_protect_tenant_relation(regclass),
  spindle_protect_new_tenant_relations(), spindle_is_columnstore(regclass), spindle_tenant_source(regclass) FROM PUBLIC;
