// The alert engine's hook (apps/worker/src/alerts: OnAlertTransition, called once per rule that
// changed state in an evaluation, inside its transaction) turned into outbox rows: a notice per
// subject whose change notifies, grouped per channel into one message each. The group type is structural, matching @spindle/domain's
// AlertTransitionGroup, so this package needs no dependency on the engine.
import type { AlertNoticeInput, Severity } from "../notice.js";
import type { alertStates } from "../notice.js";
import { enqueueGroupedAlertNotifications, type EnqueueResult } from "./outbox.js";
import type { Queryable } from "./queryable.js";

type EngineState = (typeof alertStates)[number];

export interface AlertTransitionGroupLike {
  orgId: string;
  ruleId: string;
  ruleName: string;
  /** The catalogue signal the rule evaluates: what the value is measured from. */
  signal: string;
  severity: Severity;
  comparison: ">" | ">=" | "<" | "<=";
  threshold: number;
  /** Unit of value and threshold, when the engine knows it. */
  unit?: string;
  /** What the value is measured from, when the engine says (cut to the notice's 300 characters). */
  basis?: string;
  at: Date;
  note: string;
  transitions: ReadonlyArray<{
    /** alert_history.id: the notice's transitionId. */
    historyId: string;
    serverId: string;
    /** Device or scanned root, "" for the server itself. */
    component: string;
    from: EngineState;
    to: EngineState;
    value: number | null;
    silencedBy: string | null;
    /** When the episode began (alert_states.state_since of its first non-ok state), if known. */
    startedAt?: Date;
  }>;
}

const clip = (text: string, limit: number) => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`);

/** The chart around the event: an hour either side of the change. */
const chartMarginMs = 3_600_000;

function notifies(from: EngineState, to: EngineState): boolean {
  return to === "firing" || to === "no_data" || (to === "ok" && (from === "firing" || from === "no_data"));
}

/**
 * Queues the group's notifying changes in `tx`, grouped per channel (see
 * enqueueGroupedAlertNotifications): one message per channel and kind of change, listing every
 * subject. The totals count messages, not subjects.
 */
export async function enqueueTransitionGroup(tx: Queryable, group: AlertTransitionGroupLike): Promise<EnqueueResult> {
  const changes = group.transitions.filter((t) => notifies(t.from, t.to));
  if (changes.length === 0) return { queued: [], suppressed: 0, alreadyQueued: 0 };
  const { rows } = await tx.query("SELECT id::text, hostname, tags FROM servers WHERE org_id = $1 AND id = ANY($2::uuid[])", [
    group.orgId,
    [...new Set(changes.map((t) => t.serverId))],
  ]);
  const servers = new Map((rows as Array<{ id: string; hostname: string; tags: string[] }>).map((r) => [r.id, r]));
  const from = new Date(group.at.getTime() - chartMarginMs).toISOString();
  const to = new Date(group.at.getTime() + chartMarginMs).toISOString();
  const notices = changes.map((change): AlertNoticeInput => {
    const server = servers.get(change.serverId);
    return {
      orgId: group.orgId,
      transitionId: change.historyId,
      rule: { id: group.ruleId, name: group.ruleName },
      severity: group.severity,
      state: { from: change.from, to: change.to as AlertNoticeInput["state"]["to"] },
      subject: {
        serverId: change.serverId,
        serverName: server?.hostname ?? null,
        device: change.component || null,
        tags: server?.tags ?? [],
      },
      value: change.value,
      threshold: group.threshold,
      comparison: group.comparison,
      unit: group.unit ?? "",
      basis: clip(group.basis ?? `signal ${group.signal}`, 300),
      startedAt: change.startedAt?.toISOString() ?? null,
      at: group.at.toISOString(),
      note: group.note,
      linkPath: `/servers/${change.serverId}?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      silenced: change.silencedBy !== null,
    };
  });
  return enqueueGroupedAlertNotifications(tx, notices);
}
