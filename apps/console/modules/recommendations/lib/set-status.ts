// Dismiss, snooze and reopen: remembered on the row (the worker's refresh keeps them), audited.
import { inOrg, type Db } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { snoozeInput, type RecommendationView, type SnoozeInput } from "../types/recommendation";
import { recordRecommendationAudit, requireRecommendationPermission, type RecommendationActor } from "./authorise";
import { readRecommendation } from "./list-recommendations";

const dayMs = 86_400_000;

type Change = { to: "dismissed" } | { to: "snoozed"; until: Date } | { to: "open" };

async function setStatus(db: Db, actor: RecommendationActor, id: string, change: Change, now: Date): Promise<RecommendationView> {
  requireRecommendationPermission(actor, "dismiss");
  if (!isUuid(id)) throw notFound("This recommendation");
  return inOrg(db, actor.orgId, async (tx) => {
    const row = await tx.recommendation.findFirst({ where: { orgId: actor.orgId, id }, select: { status: true, title: true } });
    if (!row) throw notFound("This recommendation");
    if (row.status === "applied")
      throw new ProblemError(409, "Already applied", "An applied recommendation stays applied; change the policy it created instead.");
    await tx.recommendation.update({
      where: { id },
      data: {
        status: change.to,
        snoozedUntil: change.to === "snoozed" ? change.until : null,
        statusChangedBy: actor.userId,
        statusChangedAt: now,
      },
    });
    const action =
      change.to === "dismissed"
        ? "recommendation.dismissed"
        : change.to === "snoozed"
          ? "recommendation.snoozed"
          : "recommendation.reopened";
    await recordRecommendationAudit(tx, actor, action, id, {
      title: row.title,
      ...(change.to === "snoozed" ? { until: change.until.toISOString() } : {}),
    });
    return (await readRecommendation(tx, actor.orgId, id))!;
  });
}

export function dismissRecommendation(db: Db, actor: RecommendationActor, id: string, now = new Date()) {
  return setStatus(db, actor, id, { to: "dismissed" }, now);
}

export function snoozeRecommendation(db: Db, actor: RecommendationActor, id: string, raw: SnoozeInput, now = new Date()) {
  const { days } = snoozeInput.parse(raw);
  return setStatus(db, actor, id, { to: "snoozed", until: new Date(now.getTime() + days * dayMs) }, now);
}

export function reopenRecommendation(db: Db, actor: RecommendationActor, id: string, now = new Date()) {
  return setStatus(db, actor, id, { to: "open" }, now);
}
