// How the read cache's caused figures and each ledger line's kind read on the page.
import type { CausedInterval, LedgerLine } from "@spindle/domain";
import { formatInUnit } from "./format-gains";

/** "95 % interval: 1,020 to 1,140 reads". */
export function formatInterval(interval: CausedInterval, unit: string): string {
  return `${Math.round(interval.confidence * 100)} % interval: ${formatInUnit(interval.low, unit)} to ${formatInUnit(interval.high, unit)}`;
}

/** What kind of figure a ledger line is, in the reader's words. */
export const lineKindLabels: Record<LedgerLine["kind"], string> = {
  caused: "caused",
  "lower-bound": "lower bound",
  description: "description",
  cost: "cost",
  counter: "count",
};

/** Why each kind may or may not be read as a saving (hover text). */
export const lineKindHints: Record<LedgerLine["kind"], string> = {
  caused: "Measured against a control or comparison group: what the feature caused, with its interval where there is one.",
  "lower-bound": "Counted directly, page by page: the feature caused at least this much.",
  description: "What happened, not a saving: the kernel's page cache serves most of these reads with or without Spindle.",
  cost: "What the feature spent to do its work.",
  counter: "The feature's own count of what it did.",
};
