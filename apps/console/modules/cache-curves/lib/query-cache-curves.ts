// The miss-ratio curves of one server (cache_mrc, docs/metrics.md "Miss-ratio curves") and the
// two figures drawn on them, read under row-level security (inOrgSql).
import { formatBytes, formatNumber } from "@/lib/format";
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { readServerSql } from "@/modules/fleet/lib/get-server";
import type { CacheCurve, CacheCurves, CurveMarker } from "../types/cache-curves";

/** How many windows the picker offers: at the default 5 minutes, the last four hours. */
const windowChoices = 48;
/** A read-cache budget older than this before the window's end is not "the budget then". */
const budgetFreshnessSeconds = 3600;

interface CurveRow {
  curve: CacheCurve["curve"];
  scope: string;
  sample_rate: number;
  sampled_accesses: string;
  window_seconds: number;
  sizes_bytes: string[];
  hit_ratios: number[];
}

export async function queryCacheCurves(db: Db, orgId: string, serverId: string, end?: string): Promise<CacheCurves> {
  return inOrgSql(db, orgId, async (sql) => {
    const server = await readServerSql(sql, orgId, serverId);
    const windows = (
      await sql.query<{ end: Date; window_seconds: number }>(
        `SELECT time AS end, max(window_seconds) AS window_seconds FROM cache_mrc
         WHERE org_id = $1 AND server_id = $2 GROUP BY time ORDER BY time DESC LIMIT ${windowChoices}`,
        [orgId, server.id],
      )
    ).rows.map((row) => ({ end: row.end.toISOString(), windowSeconds: row.window_seconds }));
    const shown = end ? new Date(end).toISOString() : windows[0]?.end;
    if (!shown) return { windows, end: null, curves: [], readCacheBudget: null, spareMemory: null };
    const curves = await curvesAt(sql, orgId, server.id, shown);
    if (curves.length === 0) throw notFound("A miss-ratio curve window ending then");
    const windowSeconds = Math.max(...curves.map((c) => c.windowSeconds));
    return {
      windows,
      end: shown,
      curves,
      readCacheBudget: await budgetAt(sql, orgId, server.id, shown),
      spareMemory: await spareMemoryOver(sql, orgId, server.id, shown, windowSeconds),
    };
  });
}

async function curvesAt(sql: OrgSql, orgId: string, serverId: string, end: string): Promise<CacheCurve[]> {
  const { rows } = await sql.query<CurveRow>(
    `SELECT curve, scope, sample_rate, sampled_accesses, window_seconds, sizes_bytes, hit_ratios FROM cache_mrc
     -- The gateway stores microseconds, a window's end travels as an ISO string in milliseconds:
     -- match the millisecond (found by the real agent's curves, which never showed).
     WHERE org_id = $1 AND server_id = $2 AND time >= $3::timestamptz AND time < $3::timestamptz + interval '1 millisecond'
     ORDER BY CASE curve WHEN 'page_cache' THEN 0 WHEN 'read_cache' THEN 1 ELSE 2 END, scope`,
    [orgId, serverId, end],
  );
  return rows.map((row) => ({
    curve: row.curve,
    scope: row.scope,
    sampleRate: row.sample_rate,
    sampledAccesses: Number(row.sampled_accesses),
    windowSeconds: row.window_seconds,
    sizesBytes: row.sizes_bytes.map(Number),
    hitRatios: row.hit_ratios,
  }));
}

async function budgetAt(sql: OrgSql, orgId: string, serverId: string, end: string): Promise<CurveMarker | null> {
  const { rows } = await sql.query<{ time: Date; budget_bytes: string }>(
    `SELECT time, budget_bytes FROM read_cache
     WHERE org_id = $1 AND server_id = $2 AND budget_bytes IS NOT NULL
       AND time <= $3 AND time > $3::timestamptz - make_interval(secs => ${budgetFreshnessSeconds})
     ORDER BY time DESC LIMIT 1`,
    [orgId, serverId, end],
  );
  const row = rows[0];
  if (!row) return null;
  const bytes = Number(row.budget_bytes);
  return { bytes, basis: `read cache budget ${formatBytes(bytes)} reported by the agent at ${row.time.toISOString()}` };
}

async function spareMemoryOver(
  sql: OrgSql,
  orgId: string,
  serverId: string,
  end: string,
  windowSeconds: number,
): Promise<CurveMarker | null> {
  const { rows } = await sql.query<{ p5: string | null; samples: number }>(
    `SELECT percentile_disc(0.05) WITHIN GROUP (ORDER BY available_bytes) AS p5, count(*)::int AS samples FROM memory
     WHERE org_id = $1 AND server_id = $2 AND time <= $3 AND time > $3::timestamptz - make_interval(secs => $4)`,
    [orgId, serverId, end, windowSeconds],
  );
  const row = rows[0];
  if (!row || row.p5 === null || row.samples === 0) return null;
  const bytes = Number(row.p5);
  return {
    bytes,
    basis: `5th percentile of MemAvailable over ${formatNumber(row.samples)} sample${row.samples === 1 ? "" : "s"} in the window`,
  };
}
