// Shared by the worker's notification tests: organisations, channels routed to receivers, and a
// wait that re-checks a condition each time the runner finishes a job (no wall-clock sleeps).
import { once } from "node:events";
import { withOrgTransaction } from "@spindle/db";
import {
  createChannel,
  createRoute,
  enqueueAlertNotifications,
  registerSecretsKey,
  type AlertNoticeInput,
  type ChannelKind,
} from "@spindle/notify";
import { testSecretsOpener } from "@spindle/notify/testing";
import type { Runner } from "graphile-worker";
import type pg from "pg";
import type { DeliverySettings } from "../jobs/notification-delivery.js";

export const testDelivery: DeliverySettings = {
  consoleUrl: "https://spindle.example.com",
  sendTimeoutMs: 3000,
  leaseMs: 5000,
  retryBaseMs: 150,
  retryMaxMs: 600,
  maxAttempts: 25,
  allowPrivateNetworks: true,
  secrets: testSecretsOpener,
};

/** An organisation with one server, in a database where the test key is registered for sealing. */
export async function seedOrganization(pool: pg.Pool, orgId: string, serverId: string, tags: string[]): Promise<void> {
  await registerSecretsKey(pool, testSecretsOpener);
  await pool.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)", [orgId]);
  await pool.query("INSERT INTO servers (id, org_id, machine_id, hostname, os, tags) VALUES ($1, $2, $3, 'db-01', 'linux', $4)", [
    serverId,
    orgId,
    `m-${orgId}`,
    tags,
  ]);
}

export function inOrg<T>(
  pool: pg.Pool,
  orgId: string,
  role: "spindle_console" | "spindle_worker",
  work: (tx: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return pool.connect().then(async (client) => {
    try {
      return await withOrgTransaction(client, orgId, role, () => work(client));
    } finally {
      client.release();
    }
  });
}

/** A channel with one organisation-wide route for every severity. */
export async function routedChannel(
  pool: pg.Pool,
  orgId: string,
  name: string,
  kind: ChannelKind,
  config: unknown,
  secrets: Record<string, unknown>,
) {
  return inOrg(pool, orgId, "spindle_console", async (tx) => {
    const created = await createChannel(tx, { orgId, name, kind, config, secrets, createdBy: null });
    await createRoute(
      tx,
      orgId,
      {
        channelId: created.channel.id,
        severities: ["info", "warning", "critical"],
        scope: "organization",
        tag: null,
        serverId: null,
        notifyResolved: true,
      },
      null,
    );
    return created;
  });
}

export function enqueue(pool: pg.Pool, notice: AlertNoticeInput) {
  return inOrg(pool, notice.orgId, "spindle_worker", (tx) => enqueueAlertNotifications(tx, notice));
}

export interface OutboxRow {
  id: string;
  channel_id: string;
  status: string;
  attempts: number;
  last_error: string | null;
}

export async function outboxRows(pool: pg.Pool, where = "true", params: unknown[] = []): Promise<OutboxRow[]> {
  const { rows } = await pool.query<OutboxRow>(
    `SELECT id::text, channel_id::text, status, attempts, last_error FROM notifications WHERE ${where} ORDER BY created_at, id`,
    params,
  );
  return rows;
}

/** Resolves when `check` holds, re-checking after every job the runner finishes. */
export async function untilJobsMake<T>(runner: Runner, check: () => Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const finished = once(runner.events, "job:complete");
    const result = await check();
    if (result) return result;
    await finished;
  }
}

/**
 * Resolves when `check` holds, re-reading every 50 ms: for states no runner event announces
 * (graphile-worker emits job:complete before it deletes the job row).
 */
export async function untilTrue(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Jobs graphile-worker still holds for a notification (0 once its story is over). */
export async function jobsFor(pool: pg.Pool, notificationId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = 'deliver_notification' AND j.payload->>'notificationId' = $1",
    [notificationId],
  );
  return rows[0]!.n;
}
