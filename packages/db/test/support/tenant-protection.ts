// Which tenant relations (an org_id column, schema public) are unprotected: a table without
// forced RLS and the org policy, or a relation RLS cannot cover (a view, such as a continuous aggregate,
// columnstore hypertable, raw telemetry the gateway fills with COPY) that the console or Grafana can read directly or that has no
// filtered view in spindle_tenant. Used on plain PostgreSQL and on TimescaleDB (PGlite).
export const unprotectedTenantRelationsQuery = `
  SELECT c.relname FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm', 'v')
    AND NOT (
      (c.relkind IN ('r', 'p') AND c.relrowsecurity AND c.relforcerowsecurity
        AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'spindle_org_isolation'))
      OR (NOT has_table_privilege('spindle_console', c.oid, 'SELECT')
        AND NOT has_table_privilege('spindle_grafana', c.oid, 'SELECT')
        AND to_regclass(format('spindle_tenant.%I', c.relname)) IS NOT NULL)
    )
  ORDER BY 1`;

export const unprotectedHint =
  "tables with org_id but no tenant protection: call SELECT spindle_protect_tenant_relation('<table>') " +
  "in the migration that creates them (after creating hypertables and aggregates)";

/** Every tenant relation (an org_id column, schema public), by name. */
export const tenantRelationsQuery = `
  SELECT DISTINCT c.relname FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm', 'v')
  ORDER BY 1`;
