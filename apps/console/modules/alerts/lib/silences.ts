import { alertSilenceInputSchema, type AlertSilenceInput } from "@spindle/domain";
import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { AlertSilenceSummary, SilenceStatus } from "../types/alerts";
import { recordAlertAudit, requireAlertPermission, type AlertActor } from "./authorise";
import { scopeFromColumns, scopeToColumns } from "./describe-rule";

type SilenceRow = Awaited<ReturnType<OrgTransaction["alertSilence"]["findFirstOrThrow"]>> & { rule: { name: string } | null };

export function silenceStatus(row: { startsAt: Date; endsAt: Date; cancelledAt: Date | null }, now: Date): SilenceStatus {
  if (row.cancelledAt !== null && row.cancelledAt < row.endsAt) return "cancelled";
  if (row.endsAt <= now) return "expired";
  return row.startsAt > now ? "upcoming" : "active";
}

/** Display names of users by id (members of this organisation who set, cancelled or acknowledged something). */
export async function namesOf(tx: OrgTransaction, ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  // better-auth's users have no org_id; only the names of this organisation's members are read.
  const users = await tx.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } });
  return new Map(users.map((u) => [u.id, u.name]));
}

function summarise(row: SilenceRow, names: Map<string, string>, now: Date): AlertSilenceSummary {
  return {
    id: row.id,
    ruleId: row.ruleId,
    ruleName: row.rule?.name ?? null,
    scope: scopeFromColumns(row),
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    comment: row.comment,
    createdBy: row.createdBy ? (names.get(row.createdBy) ?? "a removed user") : null,
    createdAt: row.createdAt.toISOString(),
    cancelledAt: row.cancelledAt?.toISOString() ?? null,
    cancelledBy: row.cancelledBy ? (names.get(row.cancelledBy) ?? "a removed user") : null,
    status: silenceStatus(row, now),
  };
}

const statusOrder: Record<SilenceStatus, number> = { active: 0, upcoming: 1, expired: 2, cancelled: 2 };

/** Active and upcoming silences, then the last 30 days of ended ones, newest first. */
export async function listSilences(db: Db, orgId: string, now = new Date()): Promise<AlertSilenceSummary[]> {
  return inOrg(db, orgId, async (tx) => {
    const rows = await tx.alertSilence.findMany({
      where: { orgId, endsAt: { gt: new Date(now.getTime() - 30 * 86_400_000) } },
      include: { rule: { select: { name: true } } },
      orderBy: [{ startsAt: "desc" }, { id: "asc" }],
    });
    const names = await namesOf(
      tx,
      rows.flatMap((r) => [r.createdBy, r.cancelledBy]),
    );
    return rows.map((r) => summarise(r, names, now)).sort((a, b) => statusOrder[a.status] - statusOrder[b.status]);
  });
}

export async function createSilence(db: Db, actor: AlertActor, raw: unknown, now = new Date()): Promise<AlertSilenceSummary> {
  requireAlertPermission(actor, { alertSilence: ["create"] });
  const parsed = alertSilenceInputSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ProblemError(400, "Invalid request", "The silence is not valid; see the fields marked.", {
      errors: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    });
  }
  const input: AlertSilenceInput = parsed.data;
  if (input.endsAt <= now) {
    throw new ProblemError(400, "Invalid request", "The silence would already be over; pick an end in the future.", {
      errors: [{ path: "endsAt", message: "the end is in the past" }],
    });
  }
  return inOrg(db, actor.orgId, async (tx) => {
    if (input.ruleId && !(await tx.alertRule.findFirst({ where: { orgId: actor.orgId, id: input.ruleId }, select: { id: true } }))) {
      throw new ProblemError(400, "Invalid request", "The rule does not exist in your organisation.", {
        errors: [{ path: "ruleId", message: "pick a rule of your organisation" }],
      });
    }
    const scope = input.scope;
    if (
      (scope.scope === "server" || scope.scope === "device") &&
      !(await tx.server.findFirst({ where: { orgId: actor.orgId, id: scope.serverId }, select: { id: true } }))
    ) {
      throw new ProblemError(400, "Invalid request", "The server does not exist in your organisation.", {
        errors: [{ path: "scope.serverId", message: "pick a server of your organisation" }],
      });
    }
    const row = await tx.alertSilence.create({
      data: {
        orgId: actor.orgId,
        ruleId: input.ruleId,
        ...scopeToColumns(scope),
        startsAt: input.startsAt,
        endsAt: input.endsAt,
        comment: input.comment,
        createdBy: actor.userId,
      },
      include: { rule: { select: { name: true } } },
    });
    await recordAlertAudit(tx, actor, "alert_silence.created", row.id, {
      comment: row.comment,
      rule: row.rule?.name ?? null,
      scope: row.scope,
      startsAt: row.startsAt.toISOString(),
      endsAt: row.endsAt.toISOString(),
    });
    return summarise(row, await namesOf(tx, [actor.userId]), now);
  });
}

/** Ends a silence now; history keeps it (and the transitions it covered stay marked). */
export async function cancelSilence(db: Db, actor: AlertActor, silenceId: string, now = new Date()): Promise<AlertSilenceSummary> {
  requireAlertPermission(actor, { alertSilence: ["cancel"] });
  if (!isUuid(silenceId)) throw notFound("This silence");
  return inOrg(db, actor.orgId, async (tx) => {
    const before = await tx.alertSilence.findFirst({ where: { orgId: actor.orgId, id: silenceId } });
    if (!before) throw notFound("This silence");
    const status = silenceStatus(before, now);
    if (status === "expired" || status === "cancelled") throw new ProblemError(409, "Silence over", `This silence is already ${status}.`);
    const row = await tx.alertSilence.update({
      where: { id: silenceId },
      data: { cancelledAt: now, cancelledBy: actor.userId },
      include: { rule: { select: { name: true } } },
    });
    await recordAlertAudit(tx, actor, "alert_silence.cancelled", row.id, { comment: row.comment, was: status });
    return summarise(row, await namesOf(tx, [row.createdBy, row.cancelledBy]), now);
  });
}
