// Turns outbox rows into delivery jobs as they are committed: one job per row announced on
// spindle_notification_queued, and every open row at start and after the listener reconnects
// (what was announced meanwhile is lost). The crontab's notification_sweep covers the rest.
import type { Runner } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";
import { queueDelivery, requeueOpenNotifications } from "./jobs/notification-task.js";
import { listenOnChannel } from "./jobs/pg-listener.js";

export const notificationQueuedChannel = "spindle_notification_queued";

const payloadSchema = z.object({ orgId: z.string().min(1), notificationId: z.uuid() });

/** Returns a function that stops listening. */
export function startNotificationQueueing(
  runner: Runner,
  pool: pg.Pool,
  databaseUrl: string,
  options: { minRetryMs?: number } = {},
): () => Promise<void> {
  const addJob = runner.addJob.bind(runner) as Runner["addJob"];
  const listener = listenOnChannel({
    databaseUrl,
    channel: notificationQueuedChannel,
    payloadSchema,
    onMessage: (ref) =>
      void queueDelivery(addJob, ref).catch((error: Error) =>
        console.error(`could not queue notification ${ref.notificationId}: ${error.message}`),
      ),
    onListening: (reconnected) => {
      requeueOpenNotifications(pool, addJob, "all").then(
        (count) =>
          count > 0 && console.log(`queued ${count} open notification(s)${reconnected ? " after the listener reconnected" : " at start"}`),
        (error: Error) => console.error(`could not queue open notifications: ${error.message}`),
      );
    },
    onProblem: (message) => console.error(message),
    ...options,
  });
  return () => listener.stop();
}
