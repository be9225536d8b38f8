// The safety net under LISTEN/NOTIFY and job bookkeeping: finds outbox rows that need a job.
// At start-up (and after the listener reconnects) every open row is (re)queued, since rows
// announced while no worker listened have no job yet. Every minute, rows overdue by more than a
// minute (a lost job) and claims whose lease ran out (a worker that died mid-send) are requeued.
// Queueing with the notification's job key is idempotent, so a row that has a job loses nothing.
import type pg from "pg";
import type { NotificationRef } from "./notification-delivery.js";

export interface OpenNotification extends NotificationRef {
  /** When its job should run: the next attempt, or the end of the current claim. */
  runAt: Date;
}

/** Cross-tenant by nature, so it runs as spindle_system; it reads ids and times only. */
export async function findOpenNotifications(
  pool: pg.Pool,
  which: "all" | "stuck",
  options: { overdueMs?: number; limit?: number } = {},
): Promise<OpenNotification[]> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL ROLE spindle_system");
    const { rows } = await client.query<{ org_id: string; id: string; run_at: Date }>(
      `SELECT org_id, id::text, run_at FROM (
         SELECT org_id, id, next_attempt_at AS run_at FROM notifications
          WHERE status = 'pending' AND ($1 OR next_attempt_at <= now() - $2 * interval '1 millisecond')
         UNION ALL
         SELECT org_id, id, lease_until FROM notifications
          WHERE status = 'sending' AND ($1 OR lease_until <= now())
       ) open ORDER BY run_at LIMIT $3`,
      [which === "all", options.overdueMs ?? 60_000, options.limit ?? 1000],
    );
    await client.query("COMMIT");
    return rows.map((row) => ({ orgId: row.org_id, notificationId: row.id, runAt: row.run_at }));
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
