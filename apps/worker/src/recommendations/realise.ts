// The realised effect of applied recommendations. The after window starts when the agent
// confirmed the policy (server_policy_status.applied_at, not the click) and lasts
// `realiseAfterSeconds`; once it has passed, the read cache's hit ratio over it is held against
// the same window on each of the seven previous days (and, for a whole-day window with less
// history, against the previous day minute by minute), and the realised change with its interval
// is compared with the predicted change (@spindle/domain realisedEffect). Until the agent has
// confirmed and the window has passed, nothing is written.
import { confidenceSchema, predictionSchema, realisedEffect, type RatioUnit, type ReadCacheSums, type TimeWindow } from "@spindle/domain";
import type { TenantQueryable } from "@spindle/db";

const minute = 60_000;
const day = 24 * 60 * minute;

/** Sums of read_cache over each window (rows stamped at their interval's end: time in (from, to]). */
async function windowSums(tx: TenantQueryable, orgId: string, serverId: string, windows: readonly TimeWindow[]): Promise<ReadCacheSums[]> {
  const { rows } = await tx.query(
    `SELECT w.idx::int AS window_index, sum(r.hits_bytes)::float8 AS hits, sum(r.misses_bytes)::float8 AS misses, count(r.time)::int AS samples
     FROM unnest($3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS w(from_at, to_at, idx)
     LEFT JOIN read_cache r ON r.org_id = $1 AND r.server_id = $2 AND r.time > w.from_at AND r.time <= w.to_at
     GROUP BY w.idx ORDER BY w.idx`,
    [orgId, serverId, windows.map((window) => window.from), windows.map((window) => window.to)],
  );
  return rows.map((row) => ({ hitsBytes: row.hits, missesBytes: row.misses, samples: row.samples }));
}

/** Consecutive 1-minute hit and miss bytes over a window, minutes without rows as zeros. */
async function minuteUnits(tx: TenantQueryable, orgId: string, serverId: string, window: TimeWindow): Promise<RatioUnit[]> {
  const { rows } = await tx.query(
    `SELECT date_trunc('minute', time) AS minute, sum(hits_bytes)::float8 AS hits, sum(misses_bytes)::float8 AS misses
     FROM read_cache WHERE org_id = $1 AND server_id = $2 AND time > $3 AND time <= $4 AND hits_bytes IS NOT NULL AND misses_bytes IS NOT NULL
     GROUP BY 1`,
    [orgId, serverId, window.from, window.to],
  );
  const byMinute = new Map<number, { hits: number; misses: number }>(rows.map((row) => [new Date(row.minute).getTime(), row]));
  const units: RatioUnit[] = [];
  for (let t = Math.floor(window.from.getTime() / minute) * minute; t < window.to.getTime(); t += minute) {
    const row = byMinute.get(t);
    units.push(row ? { numerator: row.hits, denominator: row.hits + row.misses } : { numerator: 0, denominator: 0 });
  }
  return units;
}

export async function realiseApplied(tx: TenantQueryable, orgId: string, now: Date, realiseAfterSeconds: number): Promise<number> {
  const { rows } = await tx.query(
    `SELECT r.id, r.server_id, r.prediction, r.confidence, s.applied_at AS agent_applied_at
     FROM recommendations r
     JOIN server_policy_status s ON s.org_id = r.org_id AND s.server_id = r.server_id
     WHERE r.org_id = $1 AND r.status = 'applied' AND r.realised IS NULL
       AND s.status = 'applied' AND s.applied_at >= r.applied_at AND s.applied_at <= $2`,
    [orgId, new Date(now.getTime() - realiseAfterSeconds * 1000)],
  );
  for (const row of rows) {
    const changeAt: Date = row.agent_applied_at;
    const span = realiseAfterSeconds * 1000;
    const at = (offset: number): TimeWindow => ({
      from: new Date(changeAt.getTime() + offset),
      to: new Date(changeAt.getTime() + offset + span),
    });
    const after = at(0);
    const previous = Array.from({ length: 7 }, (_, i) => at(-(i + 1) * day));
    const [afterSums, ...previousDays] = await windowSums(tx, orgId, row.server_id, [after, ...previous]);
    // The minute-by-minute fallback only for a whole-day window with fewer than four previous days.
    const usableDays = previousDays.filter((sums) => sums.samples > 0).length;
    const minutes =
      span >= day && usableDays < 4 && previousDays[0]!.samples > 0
        ? { before: await minuteUnits(tx, orgId, row.server_id, previous[0]!), after: await minuteUnits(tx, orgId, row.server_id, after) }
        : null;
    const effect = realisedEffect(predictionSchema.parse(row.prediction), confidenceSchema.parse(row.confidence), after, {
      after: afterSums!,
      previousDays: previousDays.map((sums) => (sums.samples > 0 ? sums : null)),
      minutes,
    });
    await tx.query("UPDATE recommendations SET realised = $3, realised_at = $4 WHERE org_id = $1 AND id = $2", [
      orgId,
      row.id,
      JSON.stringify(effect),
      now,
    ]);
  }
  return rows.length;
}
