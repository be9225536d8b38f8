import { inOrgSql, type Db } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { ChartWindow } from "@/modules/metrics/lib/chart-window";
import { MAX_ANNOTATIONS, type Annotations } from "../types/annotation";
import { annotationSources, type AnnotationSource } from "./sources";

/**
 * The marks of 1 to 4 servers of the organisation over a chart window, from every source, the
 * newest kept when there are more than a chart can show. A server of another organisation (or
 * none) is a 404, as everywhere, and nothing of it is read.
 */
export async function queryAnnotations(
  db: Db,
  orgId: string,
  serverIds: string[],
  window: Pick<ChartWindow, "from" | "to">,
  sources: readonly AnnotationSource[] = annotationSources,
): Promise<Annotations> {
  if (serverIds.some((id) => !isUuid(id))) throw notFound("This server");
  return inOrgSql(db, orgId, async (sql) => {
    const { rows } = await sql.query<{ id: string; hostname: string }>(
      "SELECT id::text, hostname FROM servers WHERE org_id = $1 AND id = ANY($2::uuid[])",
      [orgId, serverIds],
    );
    if (rows.length !== serverIds.length) throw notFound("This server");
    const scope = {
      orgId,
      serverIds,
      hostnames: new Map(rows.map((row) => [row.id, row.hostname])),
      from: window.from,
      to: window.to,
      limit: MAX_ANNOTATIONS + 1,
    };
    const found = [];
    for (const source of sources) found.push(...(await source.read(sql, scope)));
    found.sort((a, b) => b.at.localeCompare(a.at) || a.id.localeCompare(b.id));
    return {
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      annotations: found.slice(0, MAX_ANNOTATIONS).reverse(),
      truncated: found.length > MAX_ANNOTATIONS,
    };
  });
}
