// One delivery attempt of one outbox row: claim it under a lease, render and send it outside any
// transaction, record the outcome. The lease is what makes a crash safe: a worker killed while
// sending leaves the row `sending` until lease_until, after which another worker claims it and
// sends again with the same id (receivers deduplicate on it). Nothing is lost, and at most the
// one message in flight is sent twice. Every write is fenced by the attempt number it claimed, so
// a worker whose lease ran out cannot overwrite the outcome of the one that took over.
import { withOrgTransaction } from "@spindle/db";
import {
  DeliveryError,
  isSealed,
  parseAlertNotice,
  parseChannelSettings,
  parseRecommendationDigest,
  renderNotification,
  secretsBinding,
  sendRendered,
  type ChannelSettings,
  type SecretsOpener,
  type RenderedMessage,
} from "@spindle/notify";
import type pg from "pg";
import { nextRetryDelayMs, type RetryPolicy } from "./notification-retry.js";

export interface DeliverySettings extends RetryPolicy {
  consoleUrl: string;
  sendTimeoutMs: number;
  /** How long a claim lasts: longer than a whole attempt (send deadline plus database writes). */
  leaseMs: number;
  allowPrivateNetworks: boolean;
  /** Opens channel secrets sealed to the workers' key; null when SPINDLE_NOTIFY_SECRETS_KEY_FILE is unset. */
  secrets: SecretsOpener | null;
  random?: () => number;
}

export interface NotificationRef {
  orgId: string;
  notificationId: string;
}

export type DeliveryOutcome =
  | { kind: "sent"; attempts: number; answer: string }
  | { kind: "retry"; attempts: number; at: Date; error: string }
  | { kind: "failed"; attempts: number; error: string }
  /** Pending, but its next attempt is later: run again then. */
  | { kind: "not-due"; at: Date }
  /** Claimed by another worker whose lease has not run out: look again when it does. */
  | { kind: "in-flight"; leaseUntil: Date }
  /** Sent, failed or suppressed already, or not in this organisation. */
  | { kind: "finished"; status: string | null };

interface Claimed {
  attempts: number;
  purpose: "alert" | "test" | "recommendations";
  notice: unknown;
  channel_id: string;
  channel_name: string;
  kind: string;
  config: unknown;
  secrets: unknown;
  enabled: boolean;
}

function inOrg<T>(pool: pg.Pool, orgId: string, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  return pool.connect().then(async (client) => {
    try {
      return await withOrgTransaction(client, orgId, "spindle_worker", () => work(client));
    } finally {
      client.release();
    }
  });
}

export async function deliverNotification(pool: pg.Pool, ref: NotificationRef, settings: DeliverySettings): Promise<DeliveryOutcome> {
  const result = await claim(pool, ref, settings.leaseMs);
  if ("outcome" in result) return result.outcome;
  const { claimed } = result;

  let settingsOfChannel: ChannelSettings;
  let message: RenderedMessage;
  try {
    if (claimed.purpose !== "test" && !claimed.enabled) {
      return record(
        pool,
        ref,
        claimed.attempts,
        settings,
        new DeliveryError("the channel was disabled before this notification could be sent", false),
      );
    }
    settingsOfChannel = parseChannelSettings({ kind: claimed.kind, config: claimed.config, secrets: openSecrets(ref, claimed, settings) });
    const common = { id: ref.notificationId, channelName: claimed.channel_name };
    message = renderNotification(
      claimed.purpose === "recommendations"
        ? { ...common, purpose: claimed.purpose, digest: parseRecommendationDigest(claimed.notice) }
        : { ...common, purpose: claimed.purpose, notice: parseAlertNotice(claimed.notice) },
      settingsOfChannel,
      { consoleUrl: settings.consoleUrl },
    );
  } catch (error) {
    // Stored settings or notice that no longer validate, or a renderer bug: retrying cannot help.
    return record(
      pool,
      ref,
      claimed.attempts,
      settings,
      new DeliveryError(`cannot prepare the message: ${(error as Error).message}`, false),
    );
  }
  try {
    const answer = await sendRendered(message, settingsOfChannel, {
      timeoutMs: settings.sendTimeoutMs,
      allowPrivateNetworks: settings.allowPrivateNetworks,
      notificationId: ref.notificationId,
    });
    return record(pool, ref, claimed.attempts, settings, null, answer);
  } catch (error) {
    const failure = error instanceof DeliveryError ? error : new DeliveryError((error as Error).message, true);
    return record(pool, ref, claimed.attempts, settings, failure);
  }
}

function openSecrets(ref: NotificationRef, claimed: Claimed, settings: DeliverySettings): unknown {
  if (!isSealed(claimed.secrets)) return claimed.secrets;
  if (!settings.secrets) {
    throw new Error("the channel's secrets are sealed and this worker has no key to open them: set SPINDLE_NOTIFY_SECRETS_KEY_FILE");
  }
  return settings.secrets.open(secretsBinding(ref.orgId, claimed.channel_id), claimed.secrets);
}

async function claim(pool: pg.Pool, ref: NotificationRef, leaseMs: number): Promise<{ claimed: Claimed } | { outcome: DeliveryOutcome }> {
  return inOrg(pool, ref.orgId, async (tx) => {
    const { rows } = await tx.query<Claimed>(
      `UPDATE notifications n
          SET status = 'sending', attempts = n.attempts + 1, lease_until = now() + $3 * interval '1 millisecond'
         FROM notification_channels c
        WHERE n.id = $1 AND n.org_id = $2 AND c.org_id = n.org_id AND c.id = n.channel_id
          AND ((n.status = 'pending' AND n.next_attempt_at <= now()) OR (n.status = 'sending' AND n.lease_until <= now()))
        RETURNING n.attempts, n.purpose, n.notice, c.id::text AS channel_id, c.name AS channel_name, c.kind, c.config, c.secrets, c.enabled`,
      [ref.notificationId, ref.orgId, leaseMs],
    );
    if (rows[0]) return { claimed: rows[0] };
    const current = await tx.query<{ status: string; next_attempt_at: Date; lease_until: Date | null }>(
      "SELECT status, next_attempt_at, lease_until FROM notifications WHERE id = $1 AND org_id = $2",
      [ref.notificationId, ref.orgId],
    );
    const row = current.rows[0];
    if (row?.status === "pending") return { outcome: { kind: "not-due", at: row.next_attempt_at } };
    if (row?.status === "sending" && row.lease_until) return { outcome: { kind: "in-flight", leaseUntil: row.lease_until } };
    return { outcome: { kind: "finished", status: row?.status ?? null } };
  });
}

async function record(
  pool: pg.Pool,
  ref: NotificationRef,
  attempts: number,
  settings: DeliverySettings,
  failure: DeliveryError | null,
  answer = "",
): Promise<DeliveryOutcome> {
  const fence = "id = $1 AND org_id = $2 AND status = 'sending' AND attempts = $3";
  const params = [ref.notificationId, ref.orgId, attempts];
  if (!failure) {
    await inOrg(pool, ref.orgId, (tx) =>
      tx.query(`UPDATE notifications SET status = 'sent', sent_at = now(), lease_until = NULL, last_error = NULL WHERE ${fence}`, params),
    );
    return { kind: "sent", attempts, answer };
  }
  const error = failure.message.slice(0, 2000);
  const delayMs = failure.retryable ? nextRetryDelayMs(settings, attempts, failure.retryAfterSeconds, settings.random) : null;
  if (delayMs === null) {
    const reason = failure.retryable ? `gave up after ${attempts} attempt(s); last error: ${error}`.slice(0, 2000) : error;
    await inOrg(pool, ref.orgId, (tx) =>
      tx.query(`UPDATE notifications SET status = 'failed', failed_at = now(), lease_until = NULL, last_error = $4 WHERE ${fence}`, [
        ...params,
        reason,
      ]),
    );
    return { kind: "failed", attempts, error: reason };
  }
  const { rows } = await inOrg(pool, ref.orgId, (tx) =>
    tx.query<{ next_attempt_at: Date }>(
      `UPDATE notifications SET status = 'pending', lease_until = NULL, last_error = $4,
              next_attempt_at = now() + $5 * interval '1 millisecond'
        WHERE ${fence} RETURNING next_attempt_at`,
      [...params, error, delayMs],
    ),
  );
  return { kind: "retry", attempts, at: rows[0]?.next_attempt_at ?? new Date(Date.now() + delayMs), error };
}
