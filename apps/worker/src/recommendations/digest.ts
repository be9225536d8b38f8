// The `recommendations_digest` job: each organisation's new recommendations (open, holding, not
// yet notified) sent as one digest per period through the channels it opted in
// (docs/recommendations.md, "Digest"). Per organisation, as spindle_worker, under the same
// advisory lock as the refresh: the digest row, its outbox rows and notified_at commit together,
// so a crash before the commit sends nothing and loses nothing (the next run takes them), and the
// outbox then delivers each row exactly once (deliver_notification).
import { withOrgTransaction, type TenantQueryable } from "@spindle/db";
import { confidenceSchema, evidenceSchema, predictionSchema } from "@spindle/domain";
import { enqueueRecommendationDigest, type DigestItem, type DigestResult } from "@spindle/notify";
import type { Task, TaskSpec } from "graphile-worker";
import type pg from "pg";
import { z } from "zod";

export const recommendationsDigestTask = "recommendations_digest";
export const recommendationsDigestJobSpec = {
  queueName: "recommendations",
  jobKey: "recommendations-digest",
  maxAttempts: 5,
} satisfies TaskSpec;

export interface DigestSettings {
  /** One digest per organisation per period of this many seconds (periods aligned to the Unix epoch). */
  periodSeconds: number;
}

/** The period `now` falls in: digests are counted per period, so a retry or a second worker finds the first. */
export function periodStartOf(now: Date, periodSeconds: number): Date {
  const periodMs = periodSeconds * 1000;
  return new Date(Math.floor(now.getTime() / periodMs) * periodMs);
}

async function newRecommendations(tx: TenantQueryable, orgId: string): Promise<DigestItem[]> {
  const { rows } = await tx.query(
    `SELECT r.id, r.server_id, s.hostname, r.kind, r.title, r.evidence, r.prediction, r.confidence
       FROM recommendations r JOIN servers s ON s.org_id = r.org_id AND s.id = r.server_id
      WHERE r.org_id = $1 AND r.status = 'open' AND r.resolved_at IS NULL AND r.notified_at IS NULL
      ORDER BY r.first_seen_at, r.id
      FOR UPDATE OF r`,
    [orgId],
  );
  return rows.map((row) => {
    const evidence = evidenceSchema.parse(row.evidence);
    const prediction = predictionSchema.parse(row.prediction);
    const confidence = confidenceSchema.parse(row.confidence);
    return {
      recommendationId: row.id,
      serverId: row.server_id,
      hostname: row.hostname,
      kind: row.kind,
      title: row.title,
      why: `${evidence.metric} (${evidence.source}), ${evidence.window.from} – ${evidence.window.to}`,
      predicted: prediction.summary,
      confidence: { level: confidence.level, reason: confidence.reason },
      linkPath: `/recommendations#recommendation-${row.id}`,
    };
  });
}

export async function digestOrganization(pool: pg.Pool, orgId: string, now: Date, settings: DigestSettings): Promise<DigestResult> {
  const client = await pool.connect();
  try {
    return await withOrgTransaction(client, orgId, "spindle_worker", async (tx) => {
      // The refresh's lock: no row changes status or appears half-way through the digest.
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('spindle.recommendations'), hashtext($1))", [orgId]);
      const result = await enqueueRecommendationDigest(tx, {
        orgId,
        periodStart: periodStartOf(now, settings.periodSeconds),
        items: await newRecommendations(tx, orgId),
        now,
      });
      if (result.status === "queued") {
        await tx.query("UPDATE recommendations SET notified_at = $3 WHERE org_id = $1 AND id = ANY($2::uuid[])", [
          orgId,
          result.recommendationIds,
          now,
        ]);
      }
      return result;
    });
  } finally {
    client.release();
  }
}

export interface DigestSummary {
  organizations: number;
  digests: number;
  failures: { orgId: string; error: Error }[];
}

/** Every organisation, each in its own transaction; one failing does not stop the others. */
export async function digestAllOrganizations(pool: pg.Pool, now: Date, settings: DigestSettings): Promise<DigestSummary> {
  const { rows } = await pool.query<{ id: string }>("SELECT id FROM organizations ORDER BY id");
  const summary: DigestSummary = { organizations: rows.length, digests: 0, failures: [] };
  for (const { id } of rows) {
    try {
      if ((await digestOrganization(pool, id, now, settings)).status === "queued") summary.digests++;
    } catch (error) {
      summary.failures.push({ orgId: id, error: error as Error });
    }
  }
  return summary;
}

const payloadSchema = z.object({ _cron: z.object({ ts: z.string(), backfilled: z.boolean() }).optional() }).strict();

export function createRecommendationsDigestTask(pool: pg.Pool, settings: DigestSettings): Task {
  return async (payload, helpers) => {
    if (!payloadSchema.safeParse(payload ?? {}).success) {
      throw new Error(`${recommendationsDigestTask} takes {} (plus graphile-worker's "_cron"), got ${JSON.stringify(payload)}`);
    }
    const summary = await digestAllOrganizations(pool, new Date(), settings);
    if (summary.digests > 0) helpers.logger.info(`recommendations: ${summary.digests} digest(s) queued`);
    if (summary.failures.length > 0) {
      throw new Error(
        `recommendations digest failed for ${summary.failures.length} organisation(s): ` +
          summary.failures.map((f) => `${f.orgId}: ${f.error.message}`).join("; "),
      );
    }
  };
}
