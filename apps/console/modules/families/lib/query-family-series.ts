import { ProblemError } from "@/lib/problem";
import { inOrgSql, type Db } from "@/lib/db";
import { readServerSql } from "@/modules/fleet/lib/get-server";
import { asChartWindow, type ChartWindow } from "@/modules/metrics/lib/chart-window";
import type { MetricsRange } from "@/modules/metrics/types/metrics";
import type { FamilyKeySeries, FamilySeries } from "../types/family-series";
import { drawableFamilies, familySeriesSql } from "./family-series-sql";

type Row = { t: number } & Record<string, string | number | null>;

/**
 * One family's points of one server over a preset range or a chart window (a zoom, a custom range). The server is looked up in the caller's
 * organisation first (another tenant's server is a 404 and its telemetry is never read), and the
 * query filters on org_id too, in one transaction under row-level security (inOrgSql).
 */
export async function queryFamilySeries(
  db: Db,
  orgId: string,
  serverId: string,
  table: string,
  window: MetricsRange | ChartWindow,
  now = new Date(),
): Promise<FamilySeries> {
  const family = drawableFamilies.get(table);
  if (!family) {
    throw new ProblemError(404, "Unknown metric family", `${table} is not a family the console draws; see docs/metrics.md, "Families".`);
  }
  const { range, from, to, source } = asChartWindow(window, now);
  const bucketSeconds = source.bucketSeconds;
  const rows = await inOrgSql(db, orgId, async (sql) => {
    await readServerSql(sql, orgId, serverId, now);
    return (await sql.query<Row>(familySeriesSql(family, bucketSeconds), [orgId, serverId, from, to])).rows;
  });
  const columns = family.aggregates.map((a) => a.name);
  const series: FamilyKeySeries[] = [];
  let current: FamilyKeySeries | undefined;
  for (const row of rows) {
    const key = Object.fromEntries(family.keys.map((k) => [k, String(row[k])]));
    if (!current || family.keys.some((k) => current!.key[k] !== key[k])) {
      current = { key, time: [], values: Object.fromEntries(columns.map((c) => [c, []])) };
      series.push(current);
    }
    current.time.push(row.t);
    for (const c of columns) current.values[c]!.push(row[c] === null ? null : Number(row[c]));
  }
  return { table, range, from: from.toISOString(), to: to.toISOString(), bucketSeconds, columns, series };
}
