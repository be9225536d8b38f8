// The realised effect of applied recommendations. The after window starts when the agent
// confirmed the policy (server_policy_status.applied_at, not the click), lasts until
// `realiseAfterSeconds` later, and is matched with a window before the change by the gains
// machinery (same hours of the previous day, or the adjacent window). Until the agent has
// confirmed and the window has passed, nothing is written.
import { matchWindows, predictionSchema, confidenceSchema, realisedEffect, type ReadCacheSums, type TimeWindow } from "@spindle/domain";
import type { TenantQueryable } from "@spindle/db";

async function readCacheSums(tx: TenantQueryable, orgId: string, serverId: string, window: TimeWindow): Promise<ReadCacheSums> {
  const { rows } = await tx.query(
    `SELECT sum(hits_bytes)::float8 AS hits, sum(misses_bytes)::float8 AS misses, count(*)::int AS samples
     FROM read_cache WHERE org_id = $1 AND server_id = $2 AND time > $3 AND time <= $4`,
    [orgId, serverId, window.from, window.to]);
  return { hitsBytes: rows[0].hits, missesBytes: rows[0].misses, samples: rows[0].samples };
}

export async function realiseApplied(tx: TenantQueryable, orgId: string, now: Date, realiseAfterSeconds: number): Promise<number> {
  const { rows } = await tx.query(
    `SELECT r.id, r.server_id, r.prediction, r.confidence, s.applied_at AS agent_applied_at
     FROM recommendations r
     JOIN server_policy_status s ON s.org_id = r.org_id AND s.server_id = r.server_id
     WHERE r.org_id = $1 AND r.status = 'applied' AND r.realised IS NULL
       AND s.status = 'applied' AND s.applied_at >= r.applied_at AND s.applied_at <= $2`,
    [orgId, new Date(now.getTime() - realiseAfterSeconds * 1000)]);
  for (const row of rows) {
    const changeAt: Date = row.agent_applied_at;
    const after = { from: changeAt, to: new Date(changeAt.getTime() + realiseAfterSeconds * 1000) };
    const history = await tx.query("SELECT min(time) AS first FROM read_cache WHERE org_id = $1 AND server_id = $2", [orgId, row.server_id]);
    const matched = matchWindows(changeAt, after.to, history.rows[0]?.first ?? null);
    const windows = matched.status === "matched" ? { before: matched.before, after: matched.after } : { before: null, after };
    const effect = realisedEffect(predictionSchema.parse(row.prediction), confidenceSchema.parse(row.confidence), windows, {
      before: windows.before ? await readCacheSums(tx, orgId, row.server_id, windows.before) : null,
      after: await readCacheSums(tx, orgId, row.server_id, windows.after),
    });
    await tx.query("UPDATE recommendations SET realised = $3, realised_at = $4 WHERE org_id = $1 AND id = $2",
      [orgId, row.id, JSON.stringify(effect), now]);
  }
  return rows.length;
}
