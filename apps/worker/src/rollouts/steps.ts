// The steps that change what servers run: release a wave, roll back what was released, complete
// the rollout. Each runs inside the driver's transaction (the rollout row locked) and ends by
// materialising the organisation's effective policies in that same transaction, then recording
// for each moved server the hash it must now confirm: a gateway never sees a step half done.
import type { GuardReading } from "@spindle/domain";
import type pg from "pg";
import { recomputeOrganizationInTransaction } from "../jobs/effective-policy.js";
import { recordAudit, recordEvent, recordServerRollbacks } from "./record.js";
import type { RolloutRow, ServerRow, WaveRow } from "./rows.js";

/** Recompute in this transaction and note the hash each of `serverIds` must now run. */
export async function materialise(client: pg.ClientBase, rollout: RolloutRow, serverIds: readonly string[]): Promise<void> {
  await recomputeOrganizationInTransaction(client, rollout.orgId);
  if (serverIds.length === 0) return;
  await client.query(
    `UPDATE rollout_servers rs SET target_hash = e.hash
       FROM server_effective_policies e
      WHERE rs.rollout_id = $1 AND rs.server_id = ANY($2::uuid[]) AND e.org_id = rs.org_id AND e.server_id = rs.server_id`,
    [rollout.id, serverIds],
  );
}

export async function releaseWave(
  client: pg.ClientBase,
  rollout: RolloutRow,
  wave: WaveRow,
  servers: readonly ServerRow[],
  now: Date,
): Promise<void> {
  const ids = servers.filter((s) => s.wave === wave.wave).map((s) => s.serverId);
  await client.query(
    `UPDATE rollout_servers SET state = 'pushed', released_at = $3, applied_at = NULL, failed_message = '', target_hash = NULL,
            rolled_back_at = NULL, rollback_confirmed_at = NULL
      WHERE rollout_id = $1 AND wave = $2`,
    [rollout.id, wave.wave, now],
  );
  await client.query(
    `UPDATE rollout_waves SET state = 'applying', released_at = $3, applied_at = NULL, guard_ends_at = NULL, decided_at = NULL,
            hold_reason = '', readings = '[]', readings_at = NULL, evaluation_ms = NULL, overridden_by = NULL, overridden_at = NULL
      WHERE rollout_id = $1 AND wave = $2`,
    [rollout.id, wave.wave, now],
  );
  await recordEvent(client, rollout, {
    kind: "wave.released",
    wave: wave.wave,
    attempt: wave.attempt,
    message: `${wave.label} went out to ${ids.length} server${ids.length === 1 ? "" : "s"}${wave.attempt > 1 ? ` (attempt ${wave.attempt})` : ""}.`,
    details: { servers: ids.length },
  });
  await materialise(client, rollout, ids);
}

/**
 * A regression (or a person) rolls back every server this rollout released, each to the policy
 * it had before, and pauses the rollout. The change stays declared; resuming releases the waves
 * again from the first, aborting restores the declared state too.
 */
export async function rollBack(
  client: pg.ClientBase,
  rollout: RolloutRow,
  servers: readonly ServerRow[],
  reason: string,
  now: Date,
  readings: readonly GuardReading[] = [],
  actorId: string | null = null,
): Promise<string[]> {
  const released = servers.filter((s) => s.state === "pushed" || s.state === "applied" || s.state === "failed").map((s) => s.serverId);
  await client.query(
    `UPDATE rollout_servers SET state = 'rolled_back', rolled_back_at = $2, target_hash = NULL, rollback_confirmed_at = NULL
      WHERE rollout_id = $1 AND server_id = ANY($3::uuid[])`,
    [rollout.id, now, released],
  );
  await client.query(
    `UPDATE rollout_waves SET state = 'rolled_back', decided_at = $2
      WHERE rollout_id = $1 AND state IN ('applying', 'watching', 'holding', 'passed')`,
    [rollout.id, now],
  );
  const statusReason = `Rolled back: ${reason}`.slice(0, 4000);
  await client.query("UPDATE rollouts SET status = 'paused', status_reason = $2, updated_at = $3 WHERE id = $1", [
    rollout.id,
    statusReason,
    now,
  ]);
  await recordEvent(client, rollout, {
    kind: "rollout.rolled_back",
    actorId,
    message: `${released.length} server${released.length === 1 ? "" : "s"} rolled back to the policy ${released.length === 1 ? "it" : "each"} had before, and the rollout paused. ${reason}`,
    details: { servers: released.length, guards: readings.filter((r) => r.status === "trip").map((r) => r.guard), readings },
  });
  if (actorId === null) await recordAudit(client, rollout, "rollout.rolled_back", { reason, servers: released.length, automatic: true });
  await materialise(client, rollout, released);
  await recordServerRollbacks(client, rollout, released, reason, now);
  return released;
}

export async function completeRollout(
  client: pg.ClientBase,
  rollout: RolloutRow,
  waves: readonly WaveRow[],
  servers: readonly ServerRow[],
  now: Date,
): Promise<void> {
  const reason = `All ${waves.length} wave${waves.length === 1 ? "" : "s"} passed their guards; ${servers.length} server${servers.length === 1 ? "" : "s"} changed.`;
  await client.query("UPDATE rollouts SET status = 'completed', status_reason = $2, updated_at = $3, finished_at = $3 WHERE id = $1", [
    rollout.id,
    reason,
    now,
  ]);
  await recordEvent(client, rollout, {
    kind: "rollout.completed",
    message: reason,
    details: { servers: servers.length, waves: waves.length },
  });
  await recordAudit(client, rollout, "rollout.completed", { waves: waves.length, servers: servers.length });
  // The held slots stop applying: servers that joined the organisation meanwhile get the change now.
  await materialise(client, rollout, []);
}
