// The recommendations digest in the outbox. The worker's recommendations_digest job calls
// enqueueRecommendationDigest in the organisation's transaction, together with setting the
// listed recommendations' notified_at: the digest row (unique per organisation and period), one
// outbox row per opted-in channel and the marks commit together or not at all, so a crash
// neither loses new recommendations nor sends them twice; the outbox then delivers each row once.
import { maxDigestItems, parseRecommendationDigest, type DigestItem } from "../digest.js";
import type { Queryable } from "./queryable.js";

export interface DigestRequest {
  orgId: string;
  /** The start of the period this digest belongs to: at most one digest per organisation and period. */
  periodStart: Date;
  /** Every new recommendation, oldest first; the first maxDigestItems are listed, the rest counted. */
  items: readonly DigestItem[];
  now: Date;
}

export type DigestResult =
  | { status: "queued"; digestId: string; notificationIds: string[]; recommendationIds: string[] }
  | { status: "nothing-new" | "no-channel" | "already-sent" };

/**
 * Queues one digest for the organisation's enabled channels that opted in. Nothing new, no such
 * channel (the recommendations wait, still not notified), or a digest already queued in this
 * period: nothing is written. The caller marks `recommendationIds` notified in the same transaction.
 */
export async function enqueueRecommendationDigest(tx: Queryable, request: DigestRequest): Promise<DigestResult> {
  if (request.items.length === 0) return { status: "nothing-new" };
  const channels = (
    await tx.query(
      "SELECT id::text FROM notification_channels WHERE org_id = $1 AND enabled AND recommendation_digest ORDER BY created_at, id",
      [request.orgId],
    )
  ).rows as Array<{ id: string }>;
  if (channels.length === 0) return { status: "no-channel" };
  const recommendationIds = request.items.map((item) => item.recommendationId);
  const digest = (
    await tx.query(
      `INSERT INTO recommendation_digests (org_id, period_start, recommendation_ids, channels, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (org_id, period_start) DO NOTHING RETURNING id::text`,
      [request.orgId, request.periodStart, recommendationIds, channels.length, request.now],
    )
  ).rows[0] as { id: string } | undefined;
  if (!digest) return { status: "already-sent" };
  const notice = parseRecommendationDigest({
    orgId: request.orgId,
    digestId: digest.id,
    at: request.now.toISOString(),
    periodStart: request.periodStart.toISOString(),
    items: request.items.slice(0, maxDigestItems),
    more: Math.max(0, request.items.length - maxDigestItems),
  });
  const notificationIds: string[] = [];
  for (const channel of channels) {
    const { rows } = await tx.query(
      `INSERT INTO notifications (org_id, channel_id, transition_id, purpose, notice) VALUES ($1, $2, $3, 'recommendations', $4)
       RETURNING id::text`,
      [request.orgId, channel.id, `recommendations:${digest.id}`, JSON.stringify(notice)],
    );
    notificationIds.push((rows[0] as { id: string }).id);
  }
  return { status: "queued", digestId: digest.id, notificationIds, recommendationIds };
}
