// Which tenant relations (an org_id column, schema public) are unprotected. Protected means both
// walls (migrations 20261123130000_tenant_security and 20261128150000_grafana_login_binding):
// - a table with forced row-level security, the services' policy (spindle_org_isolation) and the
//   Grafana login's pair (spindle_grafana_login, and the restrictive spindle_grafana_login_only
//   that holds a login to its bound organisation whatever else applies); or
// - a relation RLS cannot cover (a view, such as a continuous aggregate, a columnstore
//   hypertable, raw telemetry the gateway fills with COPY) that neither the console nor Grafana
//   can read directly, with a filtered view in spindle_tenant that Grafana cannot read and one in
//   spindle_grafana_views.
// Written independently of spindle_tenant_relation_protected(), which the migration runner uses.
// Used on plain PostgreSQL and on TimescaleDB (PGlite).
export const unprotectedTenantRelationsQuery = `
  SELECT c.relname FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm', 'v')
    AND NOT (
      (c.relkind IN ('r', 'p') AND c.relrowsecurity AND c.relforcerowsecurity
        AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'spindle_org_isolation')
        AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'spindle_grafana_login' AND p.polpermissive
          AND p.polroles = ARRAY['spindle_grafana'::regrole::oid]
          AND pg_get_expr(p.polqual, p.polrelid) = '(org_id = ( SELECT spindle_grafana_org() AS spindle_grafana_org))')
        AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'spindle_grafana_login_only' AND NOT p.polpermissive
          AND p.polroles = ARRAY['spindle_grafana'::regrole::oid]
          AND pg_get_expr(p.polqual, p.polrelid) = '(org_id = ( SELECT spindle_grafana_org() AS spindle_grafana_org))'))
      OR (NOT has_table_privilege('spindle_console', c.oid, 'SELECT')
        AND NOT has_table_privilege('spindle_grafana', c.oid, 'SELECT')
        AND to_regclass(format('spindle_tenant.%I', c.relname)) IS NOT NULL
        AND NOT has_table_privilege('spindle_grafana', to_regclass(format('spindle_tenant.%I', c.relname)), 'SELECT')
        AND to_regclass(format('spindle_grafana_views.%I', c.relname)) IS NOT NULL
        AND pg_get_viewdef(to_regclass(format('spindle_grafana_views.%I', c.relname))) LIKE '%spindle_grafana_org()%')
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
