import { inOrgSql, type Db } from "@/lib/db";
import type { FleetFacets } from "../types/fleet";

/** Every facet value of the organisation's fleet with its number of servers, in one statement. */
const facetsSql = `SELECT facet, value, servers FROM (
SELECT 'tags' AS facet, tag AS value, count(*)::int AS servers FROM servers, unnest(tags) AS tag WHERE org_id = $1 GROUP BY tag
UNION ALL
SELECT 'os', COALESCE(NULLIF(os_version, ''), os), count(*)::int FROM servers WHERE org_id = $1 AND COALESCE(NULLIF(os_version, ''), os) <> '' GROUP BY 2
UNION ALL
SELECT 'kernels', kernel, count(*)::int FROM servers WHERE org_id = $1 AND kernel <> '' GROUP BY kernel
UNION ALL
SELECT 'agentVersions', agent_version, count(*)::int FROM servers WHERE org_id = $1 AND agent_version <> '' GROUP BY agent_version
) AS facets
ORDER BY facet, value COLLATE public.spindle_natural`;

/**
 * What the filters can offer: the tags, operating systems, kernels and agent versions the
 * fleet has, whatever is filtered now, so that narrowing one filter never hides the others'
 * choices.
 */
export async function listFleetFacets(db: Db, orgId: string): Promise<FleetFacets> {
  const { rows } = await inOrgSql(db, orgId, (sql) =>
    sql.query<{ facet: keyof FleetFacets; value: string; servers: number }>(facetsSql, [orgId]),
  );
  const facets: FleetFacets = { tags: [], os: [], kernels: [], agentVersions: [] };
  for (const row of rows) facets[row.facet].push({ value: row.value, servers: row.servers });
  return facets;
}
