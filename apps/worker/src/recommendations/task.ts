// The `recommendations_refresh` job: every organisation's recommendations brought up to date
// (docs/recommendations.md). Queued by the crontab every 15 minutes; one queue and one job key,
// so the cluster refreshes once at a time and a burst of requests folds into one job.
import type { Task, TaskSpec } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import { refreshOrganization, type RefreshSettings } from "./refresh.js";

export const recommendationsRefreshTask = "recommendations_refresh";
export const recommendationsRefreshJobSpec = {
  queueName: "recommendations",
  jobKey: "recommendations-refresh",
  maxAttempts: 3,
} satisfies TaskSpec;

const payloadSchema = z.object({ _cron: z.object({ ts: z.string(), backfilled: z.boolean() }).optional() }).strict();

export interface RefreshSummary {
  organizations: number;
  created: number;
  realised: number;
  failures: { orgId: string; error: Error }[];
}

/** Refreshes every organisation with servers, each in its own transaction; one failing does not stop the others. */
export async function refreshAllOrganizations(pool: pg.Pool, now: Date, settings: RefreshSettings): Promise<RefreshSummary> {
  // organizations has no org_id (it is the tenant list) and spindle_worker may read it.
  const { rows } = await pool.query<{ id: string }>("SELECT id FROM organizations ORDER BY id");
  const summary: RefreshSummary = { organizations: rows.length, created: 0, realised: 0, failures: [] };
  for (const { id } of rows) {
    try {
      const result = await refreshOrganization(pool, id, now, settings);
      summary.created += result.created.length;
      summary.realised += result.realised;
    } catch (error) {
      summary.failures.push({ orgId: id, error: error as Error });
    }
  }
  return summary;
}

export function createRecommendationsRefreshTask(pool: pg.Pool, settings: RefreshSettings): Task {
  return async (payload, helpers) => {
    if (!payloadSchema.safeParse(payload ?? {}).success) {
      throw new Error(`${recommendationsRefreshTask} takes {} (plus graphile-worker's "_cron"), got ${JSON.stringify(payload)}`);
    }
    const summary = await refreshAllOrganizations(pool, new Date(), settings);
    if (summary.created > 0 || summary.realised > 0) {
      helpers.logger.info(
        `recommendations: ${summary.created} new, ${summary.realised} realised effect(s) in ${summary.organizations} organisation(s)`,
      );
    }
    if (summary.failures.length > 0) {
      throw new Error(
        `recommendations refresh failed for ${summary.failures.length} organisation(s): ` +
          summary.failures.map((f) => `${f.orgId}: ${f.error.message}`).join("; "),
      );
    }
  };
}
