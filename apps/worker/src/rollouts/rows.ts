// A rollout as the driver reads it inside its step's transaction: the rollout row (locked), its
// waves, and every server of it with what its agent last reported (server_policy_status) and
// when it was last heard from. docs/policy.md, "Rollouts".
import { parseRolloutPlan, type GuardReading, type RolloutPlan } from "@spindle/domain";
import type pg from "pg";

export type RolloutStatus = "running" | "paused" | "completed" | "aborted";
export type WaveState = "pending" | "applying" | "watching" | "holding" | "passed" | "rolled_back";
export type ServerState = "held" | "pushed" | "applied" | "failed" | "rolled_back";

export interface RolloutRow {
  id: string;
  orgId: string;
  kind: string;
  title: string;
  status: RolloutStatus;
  plan: RolloutPlan;
  createdBy: string | null;
}

export interface WaveRow {
  wave: number;
  label: string;
  attempt: number;
  state: WaveState;
  releasedAt: Date | null;
  appliedAt: Date | null;
  guardEndsAt: Date | null;
  holdReason: string;
  readings: GuardReading[];
  readingsAt: Date | null;
}

export interface ServerRow {
  serverId: string;
  hostname: string;
  wave: number;
  state: ServerState;
  beforeHash: string | null;
  targetHash: string | null;
  releasedAt: Date | null;
  appliedAt: Date | null;
  rollbackConfirmedAt: Date | null;
  lastSeenAt: Date | null;
  /** server_policy_status as the gateway wrote it (null: the agent never answered). */
  reported: {
    status: string;
    appliedHash: string | null;
    reportedHash: string | null;
    desiredHash: string | null;
    message: string;
    appliedAt: Date | null;
  } | null;
}

/**
 * Locks the rollout row for this transaction, or returns null when another worker holds it (that
 * worker is stepping it now; this one moves on) or it is not running or paused.
 */
export async function lockRollout(client: pg.ClientBase, orgId: string, rolloutId: string): Promise<RolloutRow | null> {
  const { rows } = await client.query<{
    id: string;
    org_id: string;
    kind: string;
    title: string;
    status: RolloutStatus;
    plan: unknown;
    created_by: string | null;
  }>(
    `SELECT id::text, org_id, kind, title, status, plan, created_by FROM rollouts
      WHERE org_id = $1 AND id = $2 AND status IN ('running', 'paused')
      FOR UPDATE SKIP LOCKED`,
    [orgId, rolloutId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    orgId: row.org_id,
    kind: row.kind,
    title: row.title,
    status: row.status,
    plan: parseRolloutPlan(row.plan),
    createdBy: row.created_by,
  };
}

export async function loadWaves(client: pg.ClientBase, rolloutId: string): Promise<WaveRow[]> {
  const { rows } = await client.query<{
    wave: number;
    label: string;
    attempt: number;
    state: WaveState;
    released_at: Date | null;
    applied_at: Date | null;
    guard_ends_at: Date | null;
    hold_reason: string;
    readings: GuardReading[];
    readings_at: Date | null;
  }>(
    `SELECT wave, label, attempt, state, released_at, applied_at, guard_ends_at, hold_reason, readings, readings_at
       FROM rollout_waves WHERE rollout_id = $1 ORDER BY wave`,
    [rolloutId],
  );
  return rows.map((r) => ({
    wave: r.wave,
    label: r.label,
    attempt: r.attempt,
    state: r.state,
    releasedAt: r.released_at,
    appliedAt: r.applied_at,
    guardEndsAt: r.guard_ends_at,
    holdReason: r.hold_reason,
    readings: r.readings,
    readingsAt: r.readings_at,
  }));
}

export async function loadServers(client: pg.ClientBase, orgId: string, rolloutId: string): Promise<ServerRow[]> {
  const { rows } = await client.query<{
    server_id: string;
    hostname: string;
    wave: number;
    state: ServerState;
    before_hash: string | null;
    target_hash: string | null;
    released_at: Date | null;
    applied_at: Date | null;
    rollback_confirmed_at: Date | null;
    last_seen_at: Date | null;
    status: string | null;
    applied_hash: string | null;
    reported_hash: string | null;
    desired_version_hash: string | null;
    message: string | null;
    status_applied_at: Date | null;
  }>(
    `SELECT rs.server_id::text, s.hostname, rs.wave, rs.state, rs.before_hash, rs.target_hash, rs.released_at, rs.applied_at,
            rs.rollback_confirmed_at, s.last_seen_at,
            st.status, st.applied_hash, st.reported_hash, st.desired_version_hash, st.message, st.applied_at AS status_applied_at
       FROM rollout_servers rs
       JOIN servers s ON s.org_id = rs.org_id AND s.id = rs.server_id
       LEFT JOIN server_policy_status st ON st.org_id = rs.org_id AND st.server_id = rs.server_id
      WHERE rs.org_id = $1 AND rs.rollout_id = $2
      ORDER BY rs.wave, s.hostname`,
    [orgId, rolloutId],
  );
  return rows.map((r) => ({
    serverId: r.server_id,
    hostname: r.hostname,
    wave: r.wave,
    state: r.state,
    beforeHash: r.before_hash,
    targetHash: r.target_hash,
    releasedAt: r.released_at,
    appliedAt: r.applied_at,
    rollbackConfirmedAt: r.rollback_confirmed_at,
    lastSeenAt: r.last_seen_at,
    reported:
      r.status === null
        ? null
        : {
            status: r.status,
            appliedHash: r.applied_hash,
            reportedHash: r.reported_hash,
            desiredHash: r.desired_version_hash,
            message: r.message ?? "",
            appliedAt: r.status_applied_at,
          },
  }));
}

/** The agent confirmed `hash` (APPLIED with it). */
export function confirmed(server: ServerRow, hash: string | null): boolean {
  return hash !== null && server.reported?.status === "applied" && server.reported.appliedHash === hash;
}

/** The agent refused `hash` (FAILED, reported for it or for the policy the gateway last sent, which was it). */
export function refused(server: ServerRow, hash: string | null): boolean {
  const reported = server.reported;
  return hash !== null && reported?.status === "failed" && (reported.reportedHash === hash || reported.desiredHash === hash);
}
