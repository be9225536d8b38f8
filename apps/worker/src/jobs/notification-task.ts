// The `deliver_notification` job (one per outbox row, job key = notification id) and the
// `notification_sweep` job (every minute). Retries are the outbox's, not graphile-worker's: a
// failed attempt is recorded on the row and a new job is queued for the row's next attempt
// (graphile-worker's own retries only cover a failure to reach the database).
import type { AddJobFunction, Task, TaskSpec } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import { deliverNotification, type DeliverySettings, type NotificationRef } from "./notification-delivery.js";
import { findOpenNotifications } from "./notification-sweep.js";

export const deliverNotificationTask = "deliver_notification";
export const notificationSweepTask = "notification_sweep";

const payloadSchema = z.object({ orgId: z.string().min(1), notificationId: z.uuid() }).strict();
const cronMetadataSchema = z.object({ ts: z.string(), backfilled: z.boolean() });
const sweepPayloadSchema = z.object({ _cron: cronMetadataSchema.optional() }).strict();

/**
 * "replace": a job not yet running is moved to `runAt`; a job that is running (or locked by a
 * worker that died, which graphile-worker would only free after four hours) gives its key to a
 * new job, so the row gets looked at again at `runAt` whatever happened to the old one.
 */
export function deliveryJobSpec(notificationId: string, runAt?: Date): TaskSpec {
  return { jobKey: notificationId, jobKeyMode: "replace", maxAttempts: 10, ...(runAt ? { runAt } : {}) };
}

export function queueDelivery(addJob: AddJobFunction, ref: NotificationRef, runAt?: Date): Promise<unknown> {
  return addJob(
    deliverNotificationTask,
    { orgId: ref.orgId, notificationId: ref.notificationId },
    deliveryJobSpec(ref.notificationId, runAt),
  );
}

/** Queues a job for every row the sweep returns; the number queued. */
export async function requeueOpenNotifications(pool: pg.Pool, addJob: AddJobFunction, which: "all" | "stuck"): Promise<number> {
  const open = await findOpenNotifications(pool, which);
  for (const row of open) await queueDelivery(addJob, row, row.runAt);
  return open.length;
}

export function createDeliverNotificationTask(pool: pg.Pool, settings: DeliverySettings): Task {
  return async (payload, helpers) => {
    const parsed = payloadSchema.safeParse(payload);
    if (!parsed.success)
      throw new Error(`${deliverNotificationTask} takes {"orgId": string, "notificationId": uuid}, got ${JSON.stringify(payload)}`);
    const ref = parsed.data;
    const outcome = await deliverNotification(pool, ref, settings);
    const name = `notification ${ref.notificationId}`;
    switch (outcome.kind) {
      case "sent":
        helpers.logger.info(`${name} sent (attempt ${outcome.attempts}): ${outcome.answer}`);
        return;
      case "retry":
        await queueDelivery(helpers.addJob, ref, outcome.at);
        helpers.logger.info(`${name}: attempt ${outcome.attempts} failed (${outcome.error}); next attempt at ${outcome.at.toISOString()}`);
        return;
      case "failed":
        helpers.logger.error(`${name} failed after ${outcome.attempts} attempt(s): ${outcome.error}`);
        return;
      case "not-due":
        await queueDelivery(helpers.addJob, ref, outcome.at);
        return;
      case "in-flight":
        // Another worker is sending it; look again when its claim runs out, in case it died.
        await queueDelivery(helpers.addJob, ref, outcome.leaseUntil);
        return;
      case "finished":
        helpers.logger.debug(`${name}: nothing to do (${outcome.status ?? "not found"})`);
        return;
    }
  };
}

export function createNotificationSweepTask(pool: pg.Pool): Task {
  return async (payload, helpers) => {
    if (!sweepPayloadSchema.safeParse(payload ?? {}).success)
      throw new Error(`${notificationSweepTask} takes no payload, got ${JSON.stringify(payload)}`);
    const requeued = await requeueOpenNotifications(pool, helpers.addJob, "stuck");
    if (requeued > 0)
      helpers.logger.info(`notification sweep: requeued ${requeued} notification(s) whose job was lost or whose worker stopped mid-send`);
  };
}
