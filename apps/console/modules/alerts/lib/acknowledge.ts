// Acknowledging a firing alert: a member says "I am on it", with an optional note. The alert is
// its change to firing in alert_history; the acknowledgement is stored on that row, so it lasts
// exactly as long as that firing (a resolve and a new firing write new rows) and history keeps it.
// It changes no state and no notification: Spindle notifies once per state change and has no
// repeats to stop, and the resolve is still sent (docs/alerts.md, "Acknowledge").
import { inOrg, type Db } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { acknowledgeInputSchema, type AlertAcknowledgement } from "../types/alerts";
import { recordAlertAudit, requireAlertPermission, type AlertActor } from "./authorise";
import { namesOf } from "./silences";

export async function acknowledgeAlert(
  db: Db,
  actor: AlertActor,
  alertId: string,
  raw: unknown,
  now = new Date(),
): Promise<AlertAcknowledgement> {
  requireAlertPermission(actor, { alert: ["acknowledge"] });
  const parsed = acknowledgeInputSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new ProblemError(400, "Invalid request", "The acknowledgement is not valid; see the fields marked.", {
      errors: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    });
  }
  const note = parsed.data.note ? parsed.data.note : null;
  if (!isUuid(alertId)) throw notFound("This alert");
  return inOrg(db, actor.orgId, async (tx) => {
    const alert = await tx.alertHistory.findFirst({ where: { orgId: actor.orgId, id: alertId } });
    if (!alert || alert.ruleId === null) throw notFound("This alert");
    if (alert.toState !== "firing")
      throw new ProblemError(
        409,
        "Not a firing alert",
        "Only a firing alert can be acknowledged; this entry records another state change.",
      );
    const current = await tx.alertState.findFirst({
      where: {
        orgId: actor.orgId,
        ruleId: alert.ruleId,
        serverId: alert.serverId,
        component: alert.component,
        state: "firing",
        stateSince: alert.at,
      },
      select: { ruleId: true },
    });
    if (!current)
      throw new ProblemError(409, "Alert over", "This alert is no longer firing; a new firing is a new alert, acknowledge that one.");
    // Only the first acknowledgement counts; a second member sees who already took it.
    const { count } = await tx.alertHistory.updateMany({
      where: { orgId: actor.orgId, id: alertId, acknowledgedAt: null },
      data: { acknowledgedAt: now, acknowledgedBy: actor.userId, acknowledgeNote: note },
    });
    if (count === 0) {
      const taken = await tx.alertHistory.findFirstOrThrow({ where: { orgId: actor.orgId, id: alertId } });
      const earlier = acknowledgementOf(taken, await namesOf(tx, [taken.acknowledgedBy]));
      throw new ProblemError(
        409,
        "Already acknowledged",
        `${earlier?.by ?? "Someone"} acknowledged this alert at ${earlier?.at ?? "an earlier time"}.`,
      );
    }
    await recordAlertAudit(tx, actor, "alert.acknowledged", alertId, {
      rule: alert.ruleName,
      serverId: alert.serverId,
      component: alert.component,
      firingSince: alert.at.toISOString(),
      note,
    });
    const names = await namesOf(tx, [actor.userId]);
    return { by: names.get(actor.userId) ?? "a removed user", at: now.toISOString(), note };
  });
}

/** The acknowledgement of a history row as the console shows it, or null. */
export function acknowledgementOf(
  row: { acknowledgedAt: Date | null; acknowledgedBy: string | null; acknowledgeNote: string | null },
  names: Map<string, string>,
): AlertAcknowledgement | null {
  if (row.acknowledgedAt === null) return null;
  return {
    by: row.acknowledgedBy ? (names.get(row.acknowledgedBy) ?? "a removed user") : "a removed user",
    at: row.acknowledgedAt.toISOString(),
    note: row.acknowledgeNote,
  };
}
