// The rule editor's preview: how often a rule would have fired over the last 7 days of real
// data, replayed by @spindle/domain's previewAlertRule on this organisation's 1-minute
// aggregates. Read-only, in one transaction under the caller's role with the organisation set.
import { alertRuleInputSchema, findAlertSignal, isSnapshotSource, previewAlertRule, scopeCovers, type AlertPreview, type AlertRuleInput } from "@spindle/domain";
import { withOrgTransaction, type ServiceRole, type TenantQueryable } from "@spindle/db";
import { fetchSourceRows } from "./sources.js";

export const previewDays = 7;

export interface PreviewOptions {
  now?: Date;
  /** spindle_worker by default; the console passes its own role (its search_path reads spindle_tenant views). */
  role?: ServiceRole;
}

/** `rule` is what the editor holds (validated here); the answer says what it rests on. */
export async function previewRule(client: TenantQueryable, orgId: string, rule: unknown, options: PreviewOptions = {}): Promise<AlertPreview> {
  const parsed = alertRuleInputSchema.safeParse(rule);
  if (!parsed.success) throw new Error(`the rule cannot be previewed: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const input: AlertRuleInput = parsed.data;
  const signal = findAlertSignal(input.signal)!;
  const to = options.now ?? new Date();
  const from = new Date(to.getTime() - previewDays * 86_400_000);
  return withOrgTransaction(client, orgId, options.role ?? "spindle_worker", async (tx) => {
    const fetchFrom = new Date(from.getTime() - Math.max(input.windowSeconds, input.noDataSeconds) * 1000 - 60_000);
    const tags = new Map((await tx.query("SELECT id::text, tags FROM servers WHERE org_id = $1", [orgId])).rows.map((r) => [r.id as string, r.tags as string[]]));
    // Only the servers the scope can cover are read; snapshot signals have no stored past
    // (previewAlertRule says so).
    const serverIds = [...tags].filter(([id, serverTags]) => scopeCovers(input.scope, { serverId: id, component: input.scope.scope === "device" ? input.scope.device : "", tags: serverTags })).map(([id]) => id);
    const subjects = isSnapshotSource(signal.source) ? [] : [...(await fetchSourceRows(tx, signal.source, { orgId, from: fetchFrom, to, serverIds })).values()];
    const inScope = subjects.filter((s) => scopeCovers(input.scope, { ...s, tags: tags.get(s.serverId)! }));
    return previewAlertRule(signal, input, inScope, from, to);
  });
}
