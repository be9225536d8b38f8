// The `alerts_evaluate` job: every organisation's rules at the current 30-second tick. Queued by
// the crontab every minute and by each worker process every 30 s; one queue and one job key, so
// the cluster runs one evaluation at a time and a burst of requests folds into one job.
import type { Task, TaskSpec } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import { evaluateOrganization, type OnAlertTransition, type OrgEvaluation } from "./evaluate.js";

export const alertsEvaluateTask = "alerts_evaluate";
export const alertEvaluationIntervalSeconds = 30;
/** No retries: the next tick is 30 s away and evaluates everything again. */
export const alertsEvaluateJobSpec = { queueName: "alert-evaluation", jobKey: "alert-evaluation", maxAttempts: 1 } satisfies TaskSpec;

const payloadSchema = z.object({ _cron: z.object({ ts: z.string(), backfilled: z.boolean() }).optional() }).strict();

/** The tick an evaluation at `now` belongs to: evaluations are idempotent per tick. */
export function evaluationTick(now: Date): Date {
  const step = alertEvaluationIntervalSeconds * 1000;
  return new Date(Math.floor(now.getTime() / step) * step);
}

export interface EvaluationSummary {
  organizations: number;
  evaluated: number;
  transitions: number;
  failures: { orgId: string; error: Error }[];
  skippedRules: string[];
}

/** Evaluates every organisation at `at`, each in its own transaction; one failing does not stop the others. */
export async function evaluateAllOrganizations(pool: pg.Pool, at: Date, onTransition?: OnAlertTransition): Promise<EvaluationSummary> {
  // organizations has no org_id (it is the tenant list) and spindle_worker may read it.
  const { rows } = await pool.query<{ id: string }>("SELECT id FROM organizations ORDER BY id");
  const summary: EvaluationSummary = { organizations: rows.length, evaluated: 0, transitions: 0, failures: [], skippedRules: [] };
  for (const { id } of rows) {
    let result: OrgEvaluation;
    try {
      result = await evaluateOrganization(pool, id, at, onTransition);
    } catch (error) {
      summary.failures.push({ orgId: id, error: error as Error });
      continue;
    }
    if (result.evaluated) summary.evaluated++;
    summary.transitions += result.transitions;
    summary.skippedRules.push(...result.skippedRules.map((rule) => `${id}: ${rule}`));
  }
  return summary;
}

export function createAlertsEvaluateTask(pool: pg.Pool, onTransition?: OnAlertTransition): Task {
  return async (payload, helpers) => {
    if (!payloadSchema.safeParse(payload ?? {}).success) {
      throw new Error(`${alertsEvaluateTask} takes {} (plus graphile-worker's "_cron"), got ${JSON.stringify(payload)}`);
    }
    const at = evaluationTick(new Date());
    const summary = await evaluateAllOrganizations(pool, at, onTransition);
    for (const rule of summary.skippedRules) helpers.logger.warn(`alert rule skipped: ${rule}`);
    if (summary.transitions > 0)
      helpers.logger.info(`alerts at ${at.toISOString()}: ${summary.transitions} state change(s) in ${summary.evaluated} organisation(s)`);
    if (summary.failures.length > 0) {
      throw new Error(
        `alert evaluation failed for ${summary.failures.length} organisation(s): ` +
          summary.failures.map((f) => `${f.orgId}: ${f.error.message}`).join("; "),
      );
    }
  };
}
