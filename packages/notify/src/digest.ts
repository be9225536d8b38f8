// The recommendations digest: what one message lists when new recommendations of an
// organisation go out through its opted-in channels (store/digest.ts queues it, render/digest.ts
// words it per channel kind). Stored as the outbox row's notice; rendering reads only this.
import { z } from "zod";

/** The most recommendations one digest lists; the rest are counted and linked. */
export const maxDigestItems = 25;

const text = (max: number) => z.string().max(max);

export const digestItemSchema = z.strictObject({
  recommendationId: z.uuid(),
  serverId: z.uuid(),
  hostname: text(255),
  kind: text(64),
  /** What to change. */
  title: text(300),
  /** Why: the evidence's metric and its window. */
  why: text(600),
  /** The predicted effect with its basis, as the console words it. */
  predicted: text(1000),
  confidence: z.strictObject({ level: z.enum(["high", "medium", "low"]), reason: text(500) }),
  /** Console path of the recommendation, e.g. /recommendations#<id>. */
  linkPath: z.string().startsWith("/").max(500),
});

export const recommendationDigestSchema = z.strictObject({
  orgId: z.string().min(1),
  digestId: z.uuid(),
  /** When the digest was queued (ISO 8601). */
  at: z.iso.datetime({ offset: true }),
  periodStart: z.iso.datetime({ offset: true }),
  items: z.array(digestItemSchema).min(1).max(maxDigestItems),
  /** New recommendations beyond the listed ones (counted, not listed). */
  more: z.number().int().min(0),
});

export type RecommendationDigest = z.infer<typeof recommendationDigestSchema>;
export type DigestItem = z.infer<typeof digestItemSchema>;

export function parseRecommendationDigest(value: unknown): RecommendationDigest {
  const parsed = recommendationDigestSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error(`invalid recommendations digest: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}
