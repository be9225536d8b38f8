import type { AlertSeverity, AlertState } from "@spindle/domain";
import { inOrg, type Db } from "@/lib/db";
import type { AlertHistoryEntry, HistoryQuery } from "../types/alerts";
import { acknowledgementOf } from "./acknowledge";
import { alertValue } from "./describe-rule";
import { namesOf } from "./silences";

export const historyPageSize = 100;

/** State changes newest first, filtered; `after` continues from the previous page's last entry. */
export async function listAlertHistory(
  db: Db,
  orgId: string,
  query: HistoryQuery,
): Promise<{ entries: AlertHistoryEntry[]; more: boolean }> {
  return inOrg(db, orgId, async (tx) => {
    const at = {
      ...(query.from ? { gte: new Date(query.from) } : {}),
      ...(query.to ? { lt: new Date(query.to) } : {}),
    };
    const rows = await tx.alertHistory.findMany({
      where: {
        orgId,
        ...(query.state ? { toState: query.state } : {}),
        ...(query.severity ? { severity: query.severity } : {}),
        ...(query.ruleId ? { ruleId: query.ruleId } : {}),
        ...(query.serverId ? { serverId: query.serverId } : {}),
        ...(Object.keys(at).length > 0 ? { at } : {}),
      },
      include: { rule: { select: { signal: true, aggregation: true, windowSeconds: true } } },
      orderBy: [{ at: "desc" }, { id: "asc" }],
      ...(query.after ? { cursor: { id: query.after }, skip: 1 } : {}),
      take: historyPageSize + 1,
    });
    const page = rows.slice(0, historyPageSize);
    const servers = await tx.server.findMany({
      where: { orgId, id: { in: [...new Set(page.map((r) => r.serverId))] } },
      select: { id: true, hostname: true },
    });
    const hostnames = new Map(servers.map((s) => [s.id, s.hostname]));
    const names = await namesOf(
      tx,
      page.map((r) => r.acknowledgedBy),
    );
    return {
      more: rows.length > historyPageSize,
      entries: page.map((r) => ({
        id: r.id,
        at: r.at.toISOString(),
        ruleId: r.ruleId,
        ruleName: r.ruleName,
        severity: r.severity as AlertSeverity,
        serverId: r.serverId,
        hostname: hostnames.get(r.serverId) ?? "a removed server",
        component: r.component,
        from: r.fromState as AlertState,
        to: r.toState as AlertState,
        value: alertValue(r.rule, { value: r.value, comparison: r.comparison, threshold: r.threshold }),
        silenced: r.silencedBy !== null,
        acknowledgement: acknowledgementOf(r, names),
      })),
    };
  });
}
