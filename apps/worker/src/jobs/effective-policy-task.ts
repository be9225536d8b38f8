// The `effective_policies` job: recompute one organisation ({"orgId": …}) or all ({}).
// Queued by the LISTEN on spindle_policy_changed, at start-up and every five minutes.
import type { Task, TaskSpec } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import { recomputeEffectivePolicies } from "./effective-policy.js";

export const effectivePoliciesTask = "effective_policies";

// graphile-worker adds `_cron` ({ts, backfilled}) to the payload of every job its crontab queues,
// so the five-minute sweep arrives as {"_cron": …}; without it here every sweep was refused.
const cronMetadataSchema = z.object({ ts: z.string(), backfilled: z.boolean() });
const payloadSchema = z.object({ orgId: z.string().min(1).optional(), _cron: cronMetadataSchema.optional() }).strict();

/**
 * One job key per organisation folds a burst of saves into one recompute (a job not yet started
 * takes the newest request; one already running is followed by another). No shared queue:
 * organisations recompute in parallel, and the SQL serialises each organisation by itself.
 */
export function effectivePoliciesJobSpec(orgId: string | null): TaskSpec {
  return { jobKey: orgId === null ? "effective-policies:all" : `effective-policies:org:${orgId}`, maxAttempts: 5 };
}

export function createEffectivePoliciesTask(pool: pg.Pool): Task {
  return async (payload, helpers) => {
    const parsed = payloadSchema.safeParse(payload ?? {});
    if (!parsed.success)
      throw new Error(`${effectivePoliciesTask} takes {"orgId"?: string} (plus graphile-worker's "_cron"), got ${JSON.stringify(payload)}`);
    const result = await recomputeEffectivePolicies(pool, parsed.data.orgId ?? null);
    const scope = parsed.data.orgId ? `organisation ${parsed.data.orgId}` : `${result.organizations} organisation(s)`;
    if (result.changed > 0 || result.invalid > 0) {
      helpers.logger.info(
        `effective policies of ${scope}: ${result.changed} of ${result.servers} server(s) changed` +
          (result.invalid > 0 ? `, ${result.invalid} invalid (previous policy kept; see server_effective_policies.error)` : ""),
      );
    } else {
      helpers.logger.debug(`effective policies of ${scope}: ${result.servers} server(s), none changed`);
    }
  };
}
