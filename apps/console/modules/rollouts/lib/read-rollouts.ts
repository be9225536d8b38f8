// Rollouts as the console shows them: the list (running and paused first), one rollout with its
// waves, each wave's servers and what their agents report, the guards' readings, the slots it
// changed and its timeline; and the notices of rollouts that completed or rolled back.
import { parseRolloutPlan, type GuardReading } from "@spindle/domain";
import { inOrg, type Db } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { findAuthors } from "@/modules/policies/lib/summarise-policy";
import type {
  RolloutDetail,
  RolloutEventView,
  RolloutNotice,
  RolloutServerState,
  RolloutSlotView,
  RolloutStatus,
  RolloutSummary,
  RolloutWaveView,
  WaveState,
} from "../types/rollout";
import { sqlOfPrisma, type RolloutSql } from "./sql";

interface RolloutRow {
  id: string;
  kind: RolloutSummary["kind"];
  title: string;
  status: RolloutStatus;
  status_reason: string;
  policy_id: string | null;
  policy_version: number | null;
  created_at: Date;
  created_by: string | null;
  finished_at: Date | null;
  plan: unknown;
}

interface WaveCount {
  rollout_id: string;
  wave: number;
  label: string;
  state: WaveState;
  servers: number;
  applied: number;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

async function summaries(sql: RolloutSql, orgId: string, rows: RolloutRow[]): Promise<RolloutSummary[]> {
  if (rows.length === 0) return [];
  const { rows: waves } = await sql.query<WaveCount>(
    `SELECT w.rollout_id::text AS rollout_id, w.wave, w.label, w.state,
            (SELECT count(*)::int FROM rollout_servers s WHERE s.rollout_id = w.rollout_id AND s.wave = w.wave) AS servers,
            (SELECT count(*)::int FROM rollout_servers s WHERE s.rollout_id = w.rollout_id AND s.wave = w.wave AND s.state = 'applied') AS applied
       FROM rollout_waves w WHERE w.org_id = $1 AND w.rollout_id = ANY($2::uuid[]) ORDER BY w.rollout_id, w.wave`,
    [orgId, rows.map((r) => r.id)],
  );
  return rows.map((row) => {
    const own = waves.filter((w) => w.rollout_id === row.id);
    const current = own.find((w) => ["applying", "watching", "holding"].includes(w.state));
    return {
      id: row.id,
      kind: row.kind,
      title: row.title,
      status: row.status,
      statusReason: row.status_reason,
      policyId: row.policy_id,
      policyVersion: row.policy_version,
      createdAt: iso(row.created_at)!,
      createdBy: row.created_by,
      finishedAt: iso(row.finished_at),
      servers: own.reduce((n, w) => n + w.servers, 0),
      applied: own.reduce((n, w) => n + w.applied, 0),
      waves: own.map((w) => ({ wave: w.wave, label: w.label, state: w.state, servers: w.servers })),
      currentWave: current?.wave ?? null,
    };
  });
}

const rolloutColumns = `id::text AS id, kind, title, status, status_reason, policy_id::text AS policy_id, policy_version, created_at, created_by, finished_at, plan`;

/** Running and paused first (newest first), then finished ones, at most `limit`; `policyId` narrows to one policy. */
export async function listRollouts(
  db: Db,
  orgId: string,
  options: { active?: boolean; policyId?: string; limit?: number } = {},
): Promise<RolloutSummary[]> {
  return inOrg(db, orgId, async (tx) => {
    const sql = sqlOfPrisma(tx);
    const { rows } = await sql.query<RolloutRow>(
      `SELECT ${rolloutColumns} FROM rollouts
        WHERE org_id = $1 AND ($2::boolean IS NOT TRUE OR status IN ('running', 'paused')) AND ($3::uuid IS NULL OR policy_id = $3::uuid)
        ORDER BY (status IN ('running', 'paused')) DESC, created_at DESC LIMIT $4`,
      [orgId, options.active ?? false, options.policyId && isUuid(options.policyId) ? options.policyId : null, options.limit ?? 100],
    );
    return summaries(sql, orgId, rows);
  });
}

export async function getRollout(db: Db, orgId: string, rolloutId: string): Promise<RolloutDetail> {
  if (!isUuid(rolloutId)) throw notFound("This rollout");
  return inOrg(db, orgId, async (tx) => {
    const sql = sqlOfPrisma(tx);
    const {
      rows: [row],
    } = await sql.query<RolloutRow>(`SELECT ${rolloutColumns} FROM rollouts WHERE org_id = $1 AND id = $2::uuid`, [orgId, rolloutId]);
    if (!row) throw notFound("This rollout");
    const [summary] = await summaries(sql, orgId, [row]);
    const { rows: waves } = await sql.query<{
      wave: number;
      label: string;
      percent: number | null;
      attempt: number;
      state: WaveState;
      released_at: Date | null;
      applied_at: Date | null;
      guard_ends_at: Date | null;
      decided_at: Date | null;
      hold_reason: string;
      readings: GuardReading[];
      readings_at: Date | null;
      overridden_by: string | null;
      overridden_at: Date | null;
    }>(
      "SELECT wave, label, percent, attempt, state, released_at, applied_at, guard_ends_at, decided_at, hold_reason, readings, readings_at, overridden_by, overridden_at FROM rollout_waves WHERE org_id = $1 AND rollout_id = $2::uuid ORDER BY wave",
      [orgId, rolloutId],
    );
    const { rows: servers } = await sql.query<{
      server_id: string;
      hostname: string;
      wave: number;
      state: RolloutServerState;
      released_at: Date | null;
      applied_at: Date | null;
      rolled_back_at: Date | null;
      rollback_confirmed_at: Date | null;
      failed_message: string;
      applied_hash: string | null;
      target_hash: string | null;
    }>(
      `SELECT rs.server_id::text AS server_id, s.hostname, rs.wave, rs.state, rs.released_at, rs.applied_at, rs.rolled_back_at, rs.rollback_confirmed_at,
              rs.failed_message, st.applied_hash, rs.target_hash
         FROM rollout_servers rs JOIN servers s ON s.org_id = rs.org_id AND s.id = rs.server_id
         LEFT JOIN server_policy_status st ON st.org_id = rs.org_id AND st.server_id = rs.server_id
        WHERE rs.org_id = $1 AND rs.rollout_id = $2::uuid ORDER BY rs.wave, s.hostname`,
      [orgId, rolloutId],
    );
    const { rows: slots } = await sql.query<{
      scope: RolloutSlotView["scope"];
      tag: string | null;
      hostname: string | null;
      before_policy_id: string | null;
      before_name: string | null;
      before_version: number | null;
      after_name: string | null;
    }>(
      `SELECT sl.scope, sl.tag, s.hostname, sl.before_policy_id::text AS before_policy_id, bp.name AS before_name, bv.version AS before_version, ap.name AS after_name
         FROM rollout_slots sl
         LEFT JOIN servers s ON s.org_id = sl.org_id AND s.id = sl.server_id
         LEFT JOIN policy_versions bv ON bv.org_id = sl.org_id AND bv.id = sl.before_version_id
         LEFT JOIN policies bp ON bp.org_id = sl.org_id AND bp.id = sl.before_policy_id
         LEFT JOIN policies ap ON ap.org_id = sl.org_id AND ap.id = sl.after_policy_id
        WHERE sl.org_id = $1 AND sl.rollout_id = $2::uuid ORDER BY sl.id`,
      [orgId, rolloutId],
    );
    const { rows: events } = await sql.query<{
      id: string;
      at: Date;
      kind: string;
      wave: number | null;
      message: string;
      actor_id: string | null;
    }>(
      "SELECT id::text AS id, at, kind, wave, message, actor_id FROM rollout_events WHERE org_id = $1 AND rollout_id = $2::uuid ORDER BY id",
      [orgId, rolloutId],
    );
    const authors = await findAuthors(tx, [...events.map((e) => e.actor_id), ...waves.map((w) => w.overridden_by), row.created_by]);
    const name = (id: string | null) => (id ? (authors.get(id)?.name ?? "a removed user") : null);

    const waveDetails: RolloutWaveView[] = waves.map((w) => ({
      wave: w.wave,
      label: w.label,
      percent: w.percent,
      attempt: w.attempt,
      state: w.state,
      releasedAt: iso(w.released_at),
      appliedAt: iso(w.applied_at),
      guardEndsAt: iso(w.guard_ends_at),
      decidedAt: iso(w.decided_at),
      holdReason: w.hold_reason,
      readings: w.readings,
      readingsAt: iso(w.readings_at),
      overriddenBy: name(w.overridden_by),
      overriddenAt: iso(w.overridden_at),
      servers: servers
        .filter((s) => s.wave === w.wave)
        .map((s) => ({
          serverId: s.server_id,
          hostname: s.hostname,
          state: s.state,
          releasedAt: iso(s.released_at),
          appliedAt: iso(s.applied_at),
          rolledBackAt: iso(s.rolled_back_at),
          rollbackConfirmedAt: iso(s.rollback_confirmed_at),
          failedMessage: s.failed_message,
          reportedHash: s.applied_hash,
          targetHash: s.target_hash,
        })),
    }));
    const timeline: RolloutEventView[] = events.map((e) => ({
      id: e.id,
      at: iso(e.at)!,
      kind: e.kind,
      wave: e.wave,
      message: e.message,
      actor: name(e.actor_id),
    }));
    return {
      ...summary!,
      createdBy: name(row.created_by),
      plan: parseRolloutPlan(row.plan),
      waveDetails,
      timeline,
      slots: slots.map((s) => ({
        scope: s.scope,
        tag: s.tag,
        serverHostname: s.hostname,
        afterPolicyName: s.after_name,
        before:
          s.before_policy_id && s.before_name && s.before_version !== null
            ? { policyId: s.before_policy_id, policyName: s.before_name, version: s.before_version }
            : null,
      })),
    };
  });
}

/** Rollouts that completed or rolled back after event `afterId` (newest 20), for the console's notices. */
export async function listRolloutNotices(db: Db, orgId: string, afterId: string | null): Promise<RolloutNotice[]> {
  return inOrg(db, orgId, async (tx) => {
    const { rows } = await sqlOfPrisma(tx).query<{
      id: string;
      rollout_id: string;
      title: string;
      kind: RolloutNotice["kind"];
      message: string;
      at: Date;
    }>(
      `SELECT e.id::text AS id, e.rollout_id::text AS rollout_id, r.title, e.kind, e.message, e.at
         FROM rollout_events e JOIN rollouts r ON r.org_id = e.org_id AND r.id = e.rollout_id
        WHERE e.org_id = $1 AND e.kind IN ('rollout.completed', 'rollout.rolled_back') AND ($2::bigint IS NULL OR e.id > $2::bigint)
        ORDER BY e.id DESC LIMIT 20`,
      [orgId, afterId && /^\d{1,18}$/.test(afterId) ? afterId : null],
    );
    return rows.map((r) => ({ eventId: r.id, rolloutId: r.rollout_id, title: r.title, kind: r.kind, message: r.message, at: iso(r.at)! }));
  });
}
