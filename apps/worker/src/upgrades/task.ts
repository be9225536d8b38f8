// The `agent_upgrades_advance` job: every running agent upgrade rollout moved one step
// (step.ts). Queued by the crontab every minute and by each worker process every
// SPINDLE_UPGRADE_INTERVAL_SECONDS; one queue and one job key, so the cluster advances the
// rollouts once at a time, and each rollout row is locked FOR UPDATE SKIP LOCKED besides.
import { withOrgTransaction, withSystemTransaction } from "@spindle/db";
import type { Task, TaskSpec } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import type { GuardSettings } from "./guards.js";
import { stepRollout, type StepOutcome } from "./step.js";

export const agentUpgradesTask = "agent_upgrades_advance";
export const agentUpgradesJobSpec = { queueName: "agent-upgrades", jobKey: "agent-upgrades-advance", maxAttempts: 3 } satisfies TaskSpec;

const payloadSchema = z.object({ _cron: z.object({ ts: z.string(), backfilled: z.boolean() }).optional() }).strict();

export interface AdvanceSummary {
  rollouts: number;
  outcomes: { orgId: string; rolloutId: string; outcome: StepOutcome }[];
  failures: { orgId: string; rolloutId: string; error: Error }[];
}

/** Advances every running rollout, each in its own transaction as spindle_worker in its organisation. */
export async function advanceUpgradeRollouts(pool: pg.Pool, now: Date, settings: GuardSettings): Promise<AdvanceSummary> {
  const client = await pool.connect();
  let running: { org_id: string; id: string }[];
  try {
    // Which organisations have a running rollout is cross-tenant: ids only, as spindle_system.
    running = await withSystemTransaction(
      client,
      async (tx) => (await tx.query("SELECT org_id, id FROM agent_upgrade_rollouts WHERE status = 'running' ORDER BY created_at")).rows,
    );
  } finally {
    client.release();
  }
  const summary: AdvanceSummary = { rollouts: running.length, outcomes: [], failures: [] };
  for (const { org_id: orgId, id } of running) {
    const tx = await pool.connect();
    try {
      // The step is handed the client itself (scoped by the transaction): the guards' SQL takes a pg client.
      const outcome = await withOrgTransaction(tx, orgId, "spindle_worker", () => stepRollout(tx, orgId, id, now, settings));
      summary.outcomes.push({ orgId, rolloutId: id, outcome });
    } catch (error) {
      summary.failures.push({ orgId, rolloutId: id, error: error as Error });
    } finally {
      tx.release();
    }
  }
  return summary;
}

export function createAgentUpgradesTask(pool: pg.Pool, settings: GuardSettings): Task {
  return async (payload, helpers) => {
    if (!payloadSchema.safeParse(payload ?? {}).success) {
      throw new Error(`${agentUpgradesTask} takes {} (plus graphile-worker's "_cron"), got ${JSON.stringify(payload)}`);
    }
    const summary = await advanceUpgradeRollouts(pool, new Date(), settings);
    for (const { rolloutId, outcome } of summary.outcomes) {
      if (outcome.kind === "paused") helpers.logger.warn(`agent upgrade ${rolloutId} paused: ${outcome.reason}`);
      else if (outcome.kind === "holding") helpers.logger.info(`agent upgrade ${rolloutId} holds: ${outcome.reason}`);
      else if (outcome.kind === "wave-offered" || outcome.kind === "completed")
        helpers.logger.info(`agent upgrade ${rolloutId}: ${outcome.kind}`);
    }
    if (summary.failures.length > 0) {
      throw new Error(`agent upgrades could not advance: ${summary.failures.map((f) => `${f.rolloutId}: ${f.error.message}`).join("; ")}`);
    }
  };
}
