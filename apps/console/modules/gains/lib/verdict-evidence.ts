// The evidence of one change, from the rows of verdict-sql.ts: per metric, the changed server's
// capped sums over the after window and the same window on each previous day, the servers not yet
// changed over the two windows, and (only when the fallback will use them) the minutes.
import {
  capUnits,
  verdictMetrics,
  type MetricEvidence,
  type MinuteEvidence,
  type RatioUnit,
  type ServerWindows,
  type VerdictMetricKey,
  type WindowSums,
} from "@spindle/domain";
import type { MinuteRow, WindowSumsRow } from "./verdict-sql";

const minute = 60_000;
const day = 24 * 60 * minute;

export interface Window {
  from: Date;
  to: Date;
}

/** The windows of a look: after, then the same window 1…7 days earlier, then the window right before. */
export function verdictWindows(changeAt: Date, afterMinutes: number): { after: Window; previousDays: Window[]; adjacent: Window } {
  const span = afterMinutes * minute;
  const at = (offset: number) => ({ from: new Date(changeAt.getTime() + offset), to: new Date(changeAt.getTime() + offset + span) });
  return { after: at(0), previousDays: Array.from({ length: 7 }, (_, i) => at(-(i + 1) * day)), adjacent: at(-span) };
}

/** Rows by server, metric and window index (1-based, the order the windows were passed). */
export class WindowSumsTable {
  private readonly rows = new Map<string, WindowSumsRow>();
  constructor(rows: readonly WindowSumsRow[]) {
    for (const row of rows) this.rows.set(`${row.server_id}|${row.metric}|${row.window_index}`, row);
  }

  sums(serverId: string, metric: VerdictMetricKey, windowIndex: number): WindowSums | null {
    const row = this.rows.get(`${serverId}|${metric}|${windowIndex}`);
    return row ? { numerator: row.numerator, denominator: row.denominator } : null;
  }

  /** The stall cap used for a server and metric (null: none, or no minutes at all). */
  cap(serverId: string, metric: VerdictMetricKey): number | null {
    for (const row of this.rows.values()) if (row.server_id === serverId && row.metric === metric) return row.cap;
    return null;
  }
}

const empty: WindowSums = { numerator: 0, denominator: 0 };

/** Consecutive 1-minute units over a window, idle minutes as zeros (they keep the spacing the autocorrelation is measured on). */
export function minuteUnits(rows: readonly MinuteRow[], window: Window, cap: number | null): RatioUnit[] {
  const byMinute = new Map(rows.map((row) => [row.bucket.getTime(), row]));
  const units: RatioUnit[] = [];
  for (let t = window.from.getTime(); t < window.to.getTime(); t += minute) {
    const row = byMinute.get(t);
    units.push(row ? { numerator: row.numerator, denominator: row.denominator } : { numerator: 0, denominator: 0 });
  }
  return capUnits(units, cap);
}

export interface EvidenceInput {
  serverId: string;
  /** The changed server's rows: window 1 = after, 2…8 = previous days, 9 = the window right before when read. */
  treated: WindowSumsTable;
  /** Index of the changed server's "before" window for the concurrent comparison (2 = yesterday, 9 = right before). */
  beforeIndex: number;
  beforeDescription: string;
  /** Servers not yet changed: window 1 = before, 2 = after. */
  controls: { ids: string[]; table: WindowSumsTable } | null;
  minutes: Map<VerdictMetricKey, MinuteEvidence> | null;
}

export function buildEvidence(input: EvidenceInput): MetricEvidence[] {
  return Object.values(verdictMetrics).map((metric) => {
    const treated = input.treated;
    const after = treated.sums(input.serverId, metric.key, 1) ?? empty;
    const controls = input.controls;
    const concurrent = controls
      ? {
          treated: [{ serverId: input.serverId, before: treated.sums(input.serverId, metric.key, input.beforeIndex) ?? empty, after }],
          control: controls.ids.map(
            (id): ServerWindows => ({
              serverId: id,
              before: controls.table.sums(id, metric.key, 1) ?? empty,
              after: controls.table.sums(id, metric.key, 2) ?? empty,
            }),
          ),
          beforeWindow: input.beforeDescription,
        }
      : null;
    return {
      metric,
      after,
      previousDays: Array.from({ length: 7 }, (_, i) => treated.sums(input.serverId, metric.key, i + 2)),
      concurrent,
      minutes: input.minutes?.get(metric.key) ?? null,
    };
  });
}
