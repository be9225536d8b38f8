// What a rollout step leaves behind, in the step's own transaction: a timeline entry on the
// rollout page, an audit entry for what changed servers, and on each server's history the
// rollback, so its charts mark it (server_events, the charts' history table).
import type pg from "pg";
import type { RolloutRow } from "./rows.js";

export interface EventInput {
  kind: string;
  message: string;
  wave?: number;
  attempt?: number;
  actorId?: string | null;
  details?: Record<string, unknown>;
}

/**
 * One timeline entry. A step's entry (wave.released, wave.applied, wave.passed,
 * rollout.completed) is unique per wave attempt in the database: a second worker that somehow
 * took the same step would fail on it and roll its whole step back.
 */
export async function recordEvent(client: pg.ClientBase, rollout: RolloutRow, event: EventInput): Promise<void> {
  await client.query(
    `INSERT INTO rollout_events (org_id, rollout_id, kind, wave, attempt, actor_id, message, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      rollout.orgId,
      rollout.id,
      event.kind,
      event.wave ?? null,
      event.attempt ?? null,
      event.actorId ?? null,
      event.message.slice(0, 4000),
      JSON.stringify(event.details ?? {}),
    ],
  );
}

/** The audit entry of an automatic step (no actor: the worker acted on a guard's reading). */
export async function recordAudit(
  client: pg.ClientBase,
  rollout: RolloutRow,
  action: string,
  details: Record<string, unknown>,
): Promise<void> {
  await client.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, NULL, $2, $3, $4)", [
    rollout.orgId,
    action,
    rollout.id,
    JSON.stringify({ title: rollout.title, ...details }),
  ]);
}

/**
 * Marks each rolled-back server's history with the rollback, the policy it went back to (hash
 * and layers, as materialised in this transaction) and the reason, for its charts.
 */
export async function recordServerRollbacks(
  client: pg.ClientBase,
  rollout: RolloutRow,
  serverIds: readonly string[],
  reason: string,
  at: Date,
): Promise<void> {
  if (serverIds.length === 0) return;
  await client.query(
    `INSERT INTO server_events (org_id, server_id, at, kind, details)
     SELECT $1, ids.id, $3, 'policy.rolled_back',
            jsonb_build_object('rolloutId', $4::text, 'title', $5::text, 'reason', $6::text, 'hash', e.hash, 'layers', coalesce(e.layers, '[]'::jsonb))
       FROM unnest($2::uuid[]) AS ids(id)
       LEFT JOIN server_effective_policies e ON e.org_id = $1 AND e.server_id = ids.id`,
    [rollout.orgId, serverIds, at, rollout.id, rollout.title, reason.slice(0, 2000)],
  );
}
