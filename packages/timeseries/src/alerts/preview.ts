// The rule editor's preview: how often a rule would have fired over the last 7 days of real
// data, replayed by @spindle/domain on this organisation's 1-minute aggregates. Read-only, in
// one transaction under the caller's role with the organisation set. Servers are read a batch
// at a time and each subject replayed and dropped, so memory stays bounded by the batch (a week
// of minutes for a few servers) however large the scope.
import {
  alertRuleInputSchema,
  findAlertSignal,
  isSnapshotSource,
  notPreviewable,
  replaySubject,
  scopeCovers,
  summarisePreview,
  type AlertPreview,
  type PreviewSubjectResult,
} from "@spindle/domain";
import { withOrgTransaction, type ServiceRole, type TenantQueryable } from "@spindle/db";
import { fetchSourceRows } from "./sources.js";

export const previewDays = 7;
const serversPerBatch = 10;

export interface PreviewOptions {
  now?: Date;
  /** spindle_worker by default; the console passes its own role (its search_path reads spindle_tenant views). */
  role?: ServiceRole;
}

/** `rule` is what the editor holds (validated here); the answer says what it rests on. */
export async function previewRule(
  client: TenantQueryable,
  orgId: string,
  rule: unknown,
  options: PreviewOptions = {},
): Promise<AlertPreview> {
  const parsed = alertRuleInputSchema.safeParse(rule);
  if (!parsed.success)
    throw new Error(`the rule cannot be previewed: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const input = parsed.data;
  const signal = findAlertSignal(input.signal)!;
  if (isSnapshotSource(signal.source)) return notPreviewable(signal);
  const to = options.now ?? new Date();
  const from = new Date(to.getTime() - previewDays * 86_400_000);
  const fetchFrom = new Date(from.getTime() - Math.max(input.windowSeconds, input.noDataSeconds) * 1000 - 60_000);
  return withOrgTransaction(client, orgId, options.role ?? "spindle_worker", async (tx) => {
    const { rows } = await tx.query("SELECT id::text, tags FROM servers WHERE org_id = $1 ORDER BY id", [orgId]);
    const tags = new Map(rows.map((r) => [r.id as string, r.tags as string[]]));
    // Only the servers the scope can cover are read.
    const component = input.scope.scope === "device" ? input.scope.device : "";
    const serverIds = [...tags]
      .filter(([serverId, serverTags]) => scopeCovers(input.scope, { serverId, component, tags: serverTags }))
      .map(([id]) => id);
    const results: PreviewSubjectResult[] = [];
    for (let i = 0; i < serverIds.length; i += serversPerBatch) {
      const batch = serverIds.slice(i, i + serversPerBatch);
      const subjects = await fetchSourceRows(tx, signal.source, { orgId, from: fetchFrom, to, serverIds: batch });
      for (const subject of subjects.values()) {
        if (scopeCovers(input.scope, { ...subject, tags: tags.get(subject.serverId)! }))
          results.push(replaySubject(signal, input, subject, from, to));
      }
    }
    return summarisePreview(signal, results, from, to);
  });
}
