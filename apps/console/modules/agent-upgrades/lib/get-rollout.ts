// One agent upgrade as its page shows it: status, plan, and each wave's servers with their state
// and the readings of its measured guards.
import { agentUpgradePlanSchema, guardReadingSchema } from "@spindle/domain";
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { AttemptView, RolloutDetail, RolloutSummary, UpgradeWaveGuards } from "../types/agent-upgrades";
import { attemptColumns, rolloutColumns, toAttempt, toRolloutSummary } from "./queries";

export async function listRolloutById(sql: OrgSql, orgId: string, id: string): Promise<RolloutSummary> {
  const { rows } = await sql.query(`SELECT ${rolloutColumns} FROM agent_upgrade_rollouts r WHERE r.org_id = $1 AND r.id = $2`, [orgId, id]);
  if (!rows[0]) throw notFound("This upgrade");
  return toRolloutSummary(rows[0]);
}

export async function getRollout(db: Db, orgId: string, id: string): Promise<RolloutDetail> {
  if (!isUuid(id)) throw notFound("This upgrade");
  return inOrgSql(db, orgId, async (sql) => {
    const { rows } = await sql.query(`SELECT ${rolloutColumns} FROM agent_upgrade_rollouts r WHERE r.org_id = $1 AND r.id = $2`, [
      orgId,
      id,
    ]);
    const row = rows[0];
    if (!row) throw notFound("This upgrade");
    const attempts = (
      await sql.query(
        `SELECT ${attemptColumns} FROM agent_upgrades u JOIN servers s ON s.org_id = u.org_id AND s.id = u.server_id
       WHERE u.org_id = $1 AND u.rollout_id = $2 ORDER BY u.wave NULLS LAST, s.hostname, u.created_at`,
        [orgId, id],
      )
    ).rows.map(toAttempt);
    const plan = agentUpgradePlanSchema.parse(row.plan);
    const guards = await waveGuards(sql, orgId, id);
    const waves: RolloutDetail["waves"] = [];
    for (let index = 0; index < (row.wave_count as number); index++) {
      waves.push({
        index,
        label: index === 0 ? "canary" : `wave ${index}`,
        attempts: attempts.filter((a: AttemptView) => a.wave === index),
        guards: guards.get(index) ?? null,
      });
    }
    return {
      ...toRolloutSummary(row),
      plan,
      waves,
      skipped: attempts.filter((a: AttemptView) => a.wave === null),
      waveInstalledAt: row.wave_installed_at instanceof Date ? row.wave_installed_at.toISOString() : null,
    };
  });
}

async function waveGuards(sql: OrgSql, orgId: string, rolloutId: string): Promise<Map<number, UpgradeWaveGuards>> {
  const { rows } = await sql.query(
    `SELECT g.wave, g.verdict, g.reason, g.readings, g.readings_at, g.after_start, g.after_end, g.before_start, g.before_end,
            g.overridden_at, (SELECT u.name FROM users u WHERE u.id = g.overridden_by) AS overridden_by
     FROM agent_upgrade_waves g WHERE g.org_id = $1 AND g.rollout_id = $2`,
    [orgId, rolloutId],
  );
  const iso = (value: unknown) => (value as Date).toISOString();
  return new Map(
    rows.map((row) => [
      row.wave as number,
      {
        verdict: row.verdict,
        reason: row.reason,
        // Stored by the worker through the same schema; parsed again so the page never shows a stray shape.
        readings: (row.readings as unknown[]).map((reading) => guardReadingSchema.parse(reading)),
        readingsAt: iso(row.readings_at),
        after: { start: iso(row.after_start), end: iso(row.after_end) },
        before: { start: iso(row.before_start), end: iso(row.before_end) },
        overriddenBy: row.overridden_at ? (row.overridden_by ?? "a former member") : null,
        overriddenAt: row.overridden_at ? iso(row.overridden_at) : null,
      },
    ]),
  );
}
