import { alertRuleInputSchema, type AlertPreview } from "@spindle/domain";
import { inOrg, previewAlertRule, type Db } from "@/lib/db";
import { ProblemError } from "@/lib/problem";

export type RulePreview =
  | (AlertPreview & { previewable: false })
  | (AlertPreview & { previewable: true; hostnames: Record<string, string> });

/**
 * How often the rule in the editor would have fired over the last 7 days of this organisation's
 * stored 1-minute aggregates, before it is saved. A signal that is the fleet's current state (no
 * stored past) answers `previewable: false` with the reason, never an empty "0 firings".
 */
export async function previewRule(db: Db, orgId: string, raw: unknown, now?: Date): Promise<RulePreview> {
  const parsed = alertRuleInputSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ProblemError(400, "Invalid request", "Fix the rule's fields to see its preview.", {
      errors: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    });
  }
  const preview = await previewAlertRule(db, orgId, parsed.data, now);
  if (!preview.previewable) return preview;
  const serverIds = [...new Set(preview.bySubject.map((s) => s.serverId))];
  const servers = await inOrg(db, orgId, (tx) =>
    tx.server.findMany({ where: { orgId, id: { in: serverIds } }, select: { id: true, hostname: true } }),
  );
  return { ...preview, bySubject: preview.bySubject.slice(0, 20), hostnames: Object.fromEntries(servers.map((s) => [s.id, s.hostname])) };
}
