import { inOrgSql, type Db } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { ChartWindow } from "@/modules/metrics/lib/chart-window";
import { readServerMetrics } from "@/modules/metrics/lib/query-server-metrics";
import { comparisonMetrics, type ComparedServer, type Comparison, type ComparisonMetric } from "../types/comparison";
import { combineDevices } from "./combine-devices";

/**
 * One metric of 2 to 4 servers of the organisation over one window, in one transaction. Each
 * server is read exactly as its own page reads it (readServerMetrics: its organisation checked
 * first, a 404 for any other), then folded into a server-wide series.
 */
export async function queryComparison(
  db: Db,
  orgId: string,
  serverIds: string[],
  metric: ComparisonMetric,
  window: ChartWindow,
): Promise<Comparison> {
  if (serverIds.some((id) => !isUuid(id))) throw notFound("This server");
  return inOrgSql(db, orgId, async (sql) => {
    const servers: ComparedServer[] = [];
    let bucketSeconds: number | null = null;
    for (const id of serverIds) {
      const metrics = await readServerMetrics(sql, orgId, id, window, window.to);
      bucketSeconds = metrics.bucketSeconds;
      const {
        rows: [row],
      } = await sql.query<{ hostname: string }>("SELECT hostname FROM servers WHERE id = $1 AND org_id = $2", [id, orgId]);
      servers.push({ id, hostname: row!.hostname, ...combineDevices(metric, metrics.devices, metrics.memory) });
    }
    return {
      metric,
      ...comparisonMetrics[metric],
      range: window.range,
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      bucketSeconds,
      servers,
    };
  });
}
