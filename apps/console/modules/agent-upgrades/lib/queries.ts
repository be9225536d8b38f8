// The SQL this module shares: attempts as the console shows them, and rollout summaries.
import type { OrgSql } from "@/lib/db";
import type { AgentUpgradeScope } from "@spindle/domain";
import type { AttemptState, AttemptView, RolloutStatus, RolloutSummary } from "../types/agent-upgrades";

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : null);

export const attemptColumns = `u.id, u.server_id, s.hostname, u.wave, u.from_version, u.target_version, u.state, u.message,
  u.offered_at, u.reported_at, u.finished_at, u.acknowledged_at`;

export function toAttempt(row: Record<string, unknown>): AttemptView {
  return {
    id: row.id as string,
    serverId: row.server_id as string,
    hostname: row.hostname as string,
    wave: (row.wave as number | null) ?? null,
    fromVersion: row.from_version as string,
    targetVersion: row.target_version as string,
    state: row.state as AttemptState,
    message: row.message as string,
    offeredAt: iso(row.offered_at),
    reportedAt: iso(row.reported_at),
    finishedAt: iso(row.finished_at),
    acknowledged: row.acknowledged_at !== null,
  };
}

export const rolloutColumns = `r.id, r.target_version, r.scope, r.status, r.status_reason, r.current_wave, r.wave_count, r.created_at,
  r.finished_at, r.wave_installed_at, r.plan, r.created_by,
  (SELECT u.name FROM users u WHERE u.id = r.created_by) AS created_by_name,
  (SELECT json_object_agg(c.state, c.n) FROM (SELECT state, count(*) AS n FROM agent_upgrades a
     WHERE a.org_id = r.org_id AND a.rollout_id = r.id GROUP BY state) c) AS counts`;

export function toRolloutSummary(row: Record<string, unknown>): RolloutSummary {
  return {
    id: row.id as string,
    targetVersion: row.target_version as string,
    scope: row.scope as AgentUpgradeScope,
    status: row.status as RolloutStatus,
    statusReason: row.status_reason as string,
    currentWave: row.current_wave as number,
    waveCount: row.wave_count as number,
    counts: (row.counts as RolloutSummary["counts"] | null) ?? {},
    createdBy: (row.created_by_name as string | null) ?? null,
    createdAt: iso(row.created_at)!,
    finishedAt: iso(row.finished_at),
  };
}

export async function listRollouts(sql: OrgSql, orgId: string, limit = 20): Promise<RolloutSummary[]> {
  const { rows } = await sql.query(
    `SELECT ${rolloutColumns} FROM agent_upgrade_rollouts r WHERE r.org_id = $1 ORDER BY r.created_at DESC LIMIT $2`,
    [orgId, limit],
  );
  return rows.map(toRolloutSummary);
}
