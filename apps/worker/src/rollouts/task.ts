// The `rollouts_advance` job: one step of every running or paused rollout, each in a transaction
// of its own as spindle_worker in the rollout's organisation. Queued every few seconds by each
// worker process, every minute by the crontab, and at once when a rollout is created or a person
// acts on one (spindle_rollout_changed); one queue and one job key fold them into one job at a
// time across the cluster. The SQL is safe without that (the rollout row is locked FOR UPDATE
// SKIP LOCKED and each step's timeline entry is unique), which the tests check with steps run
// concurrently on purpose.
import { withOrgTransaction, withSystemTransaction } from "@spindle/db";
import type { Runner, Task, TaskSpec } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import { listenOnChannel, type ChannelListener } from "../jobs/pg-listener.js";
import { stepRollout, type StepAction, type StepSettings } from "./advance.js";

export const rolloutsAdvanceTask = "rollouts_advance";
export const rolloutsAdvanceJobSpec = { queueName: "rollouts", jobKey: "rollouts-advance", maxAttempts: 1 } satisfies TaskSpec;
export const rolloutChangedChannel = "spindle_rollout_changed";

const payloadSchema = z.object({ _cron: z.object({ ts: z.string(), backfilled: z.boolean() }).optional() }).strict();

export interface RolloutStepResult {
  orgId: string;
  rolloutId: string;
  actions: StepAction[];
  error?: Error;
}

/** Running and paused rollouts of every organisation: the one cross-tenant read, as spindle_system. */
async function activeRollouts(pool: pg.Pool): Promise<{ orgId: string; rolloutId: string }[]> {
  const client = await pool.connect();
  try {
    return await withSystemTransaction(client, async () => {
      const { rows } = await client.query<{ org_id: string; id: string }>(
        "SELECT org_id, id::text FROM rollouts WHERE status IN ('running', 'paused') ORDER BY created_at, id",
      );
      return rows.map((row) => ({ orgId: row.org_id, rolloutId: row.id }));
    });
  } finally {
    client.release();
  }
}

/** One step of one rollout; the transaction commits the whole step or nothing. */
export async function stepOneRollout(
  pool: pg.Pool,
  orgId: string,
  rolloutId: string,
  settings: StepSettings,
  now = new Date(),
): Promise<StepAction[]> {
  const client = await pool.connect();
  try {
    return await withOrgTransaction(client, orgId, "spindle_worker", () => stepRollout(client, orgId, rolloutId, now, settings));
  } finally {
    client.release();
  }
}

export async function advanceAllRollouts(pool: pg.Pool, settings: StepSettings, now?: Date): Promise<RolloutStepResult[]> {
  const results: RolloutStepResult[] = [];
  for (const { orgId, rolloutId } of await activeRollouts(pool)) {
    try {
      results.push({ orgId, rolloutId, actions: await stepOneRollout(pool, orgId, rolloutId, settings, now) });
    } catch (error) {
      results.push({ orgId, rolloutId, actions: [], error: error as Error });
    }
  }
  return results;
}

export function createRolloutsAdvanceTask(pool: pg.Pool, settings: StepSettings): Task {
  return async (payload, helpers) => {
    if (!payloadSchema.safeParse(payload ?? {}).success) {
      throw new Error(`${rolloutsAdvanceTask} takes {} (plus graphile-worker's "_cron"), got ${JSON.stringify(payload)}`);
    }
    const results = await advanceAllRollouts(pool, settings);
    for (const result of results) {
      const done = result.actions.filter((action) => action !== "locked");
      if (done.length > 0) helpers.logger.info(`rollout ${result.rolloutId}: ${done.join("; ")}`);
      // One rollout failing does not stop the others; its next step retries it.
      if (result.error) helpers.logger.error(`rollout ${result.rolloutId} could not step: ${result.error.message}`);
    }
  };
}

/** Each worker process steps the rollouts every `intervalSeconds` and whenever one changes. */
export function startRolloutDriving(runner: Runner, databaseUrl: string, intervalSeconds: number): () => Promise<void> {
  const queue = () =>
    runner
      .addJob(rolloutsAdvanceTask, {}, rolloutsAdvanceJobSpec)
      .catch((error: Error) => console.error(`could not queue a rollout step: ${error.message}`));
  const timer = setInterval(() => void queue(), intervalSeconds * 1000);
  timer.unref();
  const listener: ChannelListener = listenOnChannel({
    databaseUrl,
    channel: rolloutChangedChannel,
    payloadSchema: z.object({ orgId: z.string().min(1), rolloutId: z.string().min(1) }),
    onMessage: () => void queue(),
    // At start and after a reconnection: whatever was announced meanwhile is stepped now (resume after a restart).
    onListening: () => void queue(),
    onProblem: (message) => console.error(message),
  });
  return async () => {
    clearInterval(timer);
    await listener.stop();
  };
}
