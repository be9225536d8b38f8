-- A login per service, none of them the owner (issue 25, M4). The deployments used to connect
-- every service as the owner of the schema (compose: the superuser), which row-level security does
-- not apply to: it held only inside each transaction's SET LOCAL ROLE, and whatever ran before it
-- (the gateway's credential lookup, better-auth's identity queries) or an injected statement ran
-- with every right. The services now log in as these roles, each holding only its service's role:
--   spindle_console_login  → spindle_console   (the console, better-auth)
--   spindle_gateway_login  → spindle_gateway   (ingest, OpAMP, enrolment)
--   spindle_worker_login   → spindle_worker    (jobs; spindle_system only by SET ROLE)
-- They are created without a password: `spindle-db migrate` sets each from the URL the service
-- is given (SPINDLE_CONSOLE_DATABASE_URL, …), as a SCRAM verifier, so the deployment states a
-- password once. Roles are cluster-wide, so each is created only when missing; an existing one
-- must not be able to skip row-level security.

DO $$
DECLARE
  login text;
  service text;
  r pg_roles%ROWTYPE;
BEGIN
  FOREACH service IN ARRAY ARRAY['spindle_console', 'spindle_gateway', 'spindle_worker'] LOOP
    login := service || '_login';
    SELECT * INTO r FROM pg_roles WHERE rolname = login;
    IF NOT FOUND THEN
      EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB INHERIT', login);
    ELSIF r.rolsuper OR r.rolbypassrls OR r.rolcreaterole THEN
      RAISE EXCEPTION 'role % exists and is a superuser or has BYPASSRLS or CREATEROLE, so row-level security would not hold it', login
        USING HINT = format('ALTER ROLE %I NOSUPERUSER NOBYPASSRLS NOCREATEROLE; (as a superuser) then migrate again', login);
    END IF;
    EXECUTE format('GRANT %I TO %I', service, login);
  END LOOP;
END $$;

-- The worker's job queue (graphile-worker) keeps its own schema, graphile_worker, which it creates
-- and migrates itself on start: the worker's login may create that schema in this database. It
-- holds job payloads and schedules, no tenant rows.
DO $$
BEGIN
  EXECUTE format('GRANT CREATE ON DATABASE %I TO spindle_worker_login', current_database());
EXCEPTION WHEN OTHERS THEN
  -- Not the database's owner (a managed service), or PGlite (the tests' TimescaleDB), whose
  -- template1 cannot take grants: the warning says what to run.
  RAISE WARNING 'could not let spindle_worker_login create the job queue''s schema (%): run GRANT CREATE ON DATABASE % TO spindle_worker_login as the database owner', SQLERRM, current_database();
END $$;

-- A queue schema made earlier by another login (the owner, before this migration) goes to the
-- worker's login, which must own what graphile-worker migrates on upgrades.
DO $$
DECLARE
  object record;
BEGIN
  IF to_regnamespace('graphile_worker') IS NULL
     OR (SELECT nspowner FROM pg_namespace WHERE nspname = 'graphile_worker') = 'spindle_worker_login'::regrole THEN
    RETURN;
  END IF;
  EXECUTE 'GRANT spindle_worker_login TO CURRENT_USER';
  EXECUTE 'ALTER SCHEMA graphile_worker OWNER TO spindle_worker_login';
  FOR object IN
    SELECT format('%s %s', CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' ELSE 'TABLE' END, c.oid::regclass) AS target
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'graphile_worker' AND c.relkind IN ('r', 'p', 'v', 'S')
      -- a sequence a column owns moves with its table
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
    UNION ALL
    SELECT format('%s %s', CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END, p.oid::regprocedure)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'graphile_worker'
    UNION ALL
    SELECT format('TYPE %s', t.oid::regtype) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'graphile_worker' AND t.typtype IN ('c', 'e', 'd') AND t.typrelid = 0
  LOOP
    EXECUTE format('ALTER %s OWNER TO spindle_worker_login', object.target);
  END LOOP;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE WARNING 'could not give the job queue''s schema graphile_worker to spindle_worker_login: %; as its owner run ALTER SCHEMA graphile_worker OWNER TO spindle_worker_login and the same for its tables, sequences, functions and types', SQLERRM;
END $$;
