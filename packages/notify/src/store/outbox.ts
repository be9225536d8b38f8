// The outbox: the alert engine and the console's "send test" insert rows here, in their own
// transaction; the worker delivers them (apps/worker, job deliver_notification). A row is the
// promise that a message will be sent, so it is written with the state change that causes it.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { NotifyInputError, problemsOf } from "../input-error.js";
import { maxGroupedSubjects, parseAlertNotice, type AlertNotice, type AlertNoticeInput } from "../notice.js";
import { channelsFor, type Route } from "../routing.js";
import type { Queryable } from "./queryable.js";

export interface EnqueueResult {
  /** One per matching channel, new in this call; a replayed transition adds none. */
  queued: Array<{ notificationId: string; channelId: string }>;
  /** Rows recorded as suppressed because the alert is silenced (nothing is sent). */
  suppressed: number;
  /** Matching channels that already had this transition. */
  alreadyQueued: number;
}

interface RouteRow {
  channel_id: string;
  channel_kind: string;
  severities: Route["severities"];
  scope: Route["scope"];
  tag: string | null;
  server_id: string | null;
  notify_resolved: boolean;
}

/**
 * The alert engine's entry point for one change: route `notice` and insert one outbox row per
 * matching channel, in `tx` (the transaction that records the state change). Unique per channel
 * and transition, so calling it again for the same transition inserts nothing.
 */
export async function enqueueAlertNotifications(tx: Queryable, input: AlertNoticeInput): Promise<EnqueueResult> {
  return enqueueGroupedAlertNotifications(tx, [input]);
}

/**
 * Several changes of one rule from one evaluation, grouped: per channel, the changes to the same
 * state (and equally silenced) become one message listing every subject (the first by
 * transition id leads, the others go in `also`), so 30 servers going offline at once is one
 * e-mail per channel. PagerDuty channels get one event per change: each alert is its own
 * incident there, closed by its own resolve. A replayed group forms the same groups and
 * inserts nothing (rows are unique per channel and leading transition).
 */
export async function enqueueGroupedAlertNotifications(tx: Queryable, inputs: readonly AlertNoticeInput[]): Promise<EnqueueResult> {
  const notices = inputs
    .map(parseAlertNotice)
    .sort((a, b) => (a.transitionId < b.transitionId ? -1 : a.transitionId > b.transitionId ? 1 : 0));
  const total: EnqueueResult = { queued: [], suppressed: 0, alreadyQueued: 0 };
  if (notices.length === 0) return total;
  const orgs = new Set(notices.map((n) => n.orgId));
  if (orgs.size !== 1) throw new Error("a notification group belongs to one organisation");
  const { rows } = await tx.query(
    `SELECT r.channel_id::text, c.kind AS channel_kind, r.severities, r.scope, r.tag, r.server_id::text, r.notify_resolved
       FROM notification_routes r
       JOIN notification_channels c ON c.id = r.channel_id AND c.org_id = r.org_id
      WHERE r.org_id = $1 AND c.enabled
      ORDER BY r.created_at, r.id`,
    [notices[0]!.orgId],
  );
  const routeRows = rows as RouteRow[];
  const kinds = new Map(routeRows.map((row) => [row.channel_id, row.channel_kind]));
  const routes: Route[] = routeRows.map((row) => ({
    channelId: row.channel_id,
    severities: row.severities,
    scope: row.scope,
    tag: row.tag,
    serverId: row.server_id,
    notifyResolved: row.notify_resolved,
  }));
  const groups = new Map<string, { channelId: string; notices: AlertNotice[] }>();
  for (const notice of notices) {
    for (const channelId of channelsFor(routes, notice)) {
      const key =
        kinds.get(channelId) === "pagerduty" ? `${channelId}|${notice.transitionId}` : `${channelId}|${notice.state.to}|${notice.silenced}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { channelId, notices: [] }));
      group.notices.push(notice);
    }
  }
  for (const { channelId, notices: members } of groups.values()) {
    const [lead, ...others] = members as [AlertNotice, ...AlertNotice[]];
    const listed = others.slice(0, maxGroupedSubjects);
    const notice: AlertNotice = {
      ...lead,
      also: listed.map((o) => ({ transitionId: o.transitionId, subject: o.subject, value: o.value, startedAt: o.startedAt })),
      alsoUnlisted: others.length - listed.length,
    };
    const inserted = await tx.query(
      `INSERT INTO notifications (org_id, channel_id, transition_id, purpose, notice, status)
       VALUES ($1, $2, $3, 'alert', $4, $5)
       ON CONFLICT (channel_id, transition_id) DO NOTHING
       RETURNING id::text, channel_id::text`,
      [notice.orgId, channelId, notice.transitionId, JSON.stringify(notice), notice.silenced ? "suppressed" : "pending"],
    );
    const row = (inserted.rows as Array<{ id: string; channel_id: string }>)[0];
    if (!row) total.alreadyQueued++;
    else if (notice.silenced) total.suppressed++;
    else total.queued.push({ notificationId: row.id, channelId: row.channel_id });
  }
  return total;
}

const testRequestSchema = z
  .object({
    orgId: z.string().min(1),
    channelId: z.uuid({ error: "channelId must be a channel's id" }),
    requestedBy: z.string().min(1).nullable(),
  })
  .strict();

/**
 * "Send test": a test message through the same outbox, retries and sender as real alerts, so a
 * passing test proves the path an alert takes. Works on a disabled channel too (test before
 * enabling). Returns the notification id to poll with readNotification.
 */
export async function sendTestNotification(
  tx: Queryable,
  request: { orgId: string; channelId: string; requestedBy: string | null },
  now = new Date(),
): Promise<{ notificationId: string }> {
  const parsed = testRequestSchema.safeParse(request);
  if (!parsed.success) throw new NotifyInputError("invalid test request", problemsOf(parsed.error.issues, "request"));
  const { orgId, channelId, requestedBy } = parsed.data;
  const at = now.toISOString();
  const notice: AlertNoticeInput = {
    orgId,
    transitionId: `test:${randomUUID()}`,
    rule: { id: "spindle-test", name: "Test notification" },
    severity: "info",
    state: { from: "ok", to: "firing" },
    subject: { serverId: null, serverName: null, device: null, tags: [] },
    value: null,
    threshold: null,
    comparison: null,
    unit: "",
    basis: "",
    startedAt: at,
    at,
    note: "",
    linkPath: "/alerts",
    silenced: false,
  };
  const { rows } = await tx.query(
    `INSERT INTO notifications (org_id, channel_id, transition_id, purpose, notice, requested_by)
     SELECT org_id, id, $3, 'test', $4, $5 FROM notification_channels WHERE org_id = $1 AND id = $2
     RETURNING id::text`,
    [orgId, channelId, notice.transitionId, JSON.stringify(notice), requestedBy],
  );
  if (rows.length === 0) throw new NotifyInputError("cannot send a test", [`channelId: no channel ${channelId} in this organisation`]);
  return { notificationId: (rows[0] as { id: string }).id };
}

export interface NotificationStatus {
  id: string;
  channelId: string;
  purpose: "alert" | "test";
  transitionId: string;
  status: "pending" | "sending" | "sent" | "failed" | "suppressed";
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  sentAt: Date | null;
  failedAt: Date | null;
  createdAt: Date;
}

/** Where one notification stands (the console polls this after "send test"); null if not in this organisation. */
export async function readNotification(tx: Queryable, orgId: string, notificationId: string): Promise<NotificationStatus | null> {
  if (!z.uuid().safeParse(notificationId).success) return null;
  const { rows } = await tx.query(
    `SELECT id::text, channel_id::text, purpose, transition_id, status, attempts, next_attempt_at, last_error, sent_at, failed_at, created_at
       FROM notifications WHERE org_id = $1 AND id = $2`,
    [orgId, notificationId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    channelId: row.channel_id,
    purpose: row.purpose,
    transitionId: row.transition_id,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    sentAt: row.sent_at,
    failedAt: row.failed_at,
    createdAt: row.created_at,
  };
}
