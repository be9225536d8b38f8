// The matched windows of a before/after comparison around a policy change at `changeAt`. The
// after window runs from the change for up to a day. Its match before the change covers the same
// hours of the previous day when history reaches back that far (daily load patterns cancel out);
// otherwise the equally long window right before the change. Windows are half-open [from, to).

const hour = 3600_000;
const day = 24 * hour;

/** Shorter than this after the change, there is nothing to compare yet. */
export const minimumWindowMs = 10 * 60_000;

export interface TimeWindow {
  from: Date;
  to: Date;
}

export type MatchedWindows =
  | { status: "matched"; before: TimeWindow; after: TimeWindow; matching: "same-hours-previous-day" | "adjacent" }
  | { status: "not-enough-data"; reason: string };

export function matchWindows(changeAt: Date, now: Date, historyStart: Date | null): MatchedWindows {
  const afterMs = Math.min(day, now.getTime() - changeAt.getTime());
  if (afterMs < minimumWindowMs) {
    return { status: "not-enough-data", reason: `less than ${minimumWindowMs / 60_000} minutes have passed since the change` };
  }
  const after = { from: changeAt, to: new Date(changeAt.getTime() + afterMs) };
  if (historyStart === null || historyStart.getTime() >= changeAt.getTime()) {
    return { status: "not-enough-data", reason: "no telemetry from before the change" };
  }
  const previousDay = new Date(changeAt.getTime() - day);
  if (historyStart.getTime() <= previousDay.getTime()) {
    return { status: "matched", before: { from: previousDay, to: new Date(previousDay.getTime() + afterMs) }, after, matching: "same-hours-previous-day" };
  }
  const adjacentFrom = new Date(changeAt.getTime() - afterMs);
  if (historyStart.getTime() > adjacentFrom.getTime()) {
    // Shorten both sides to the history there is, so the windows stay equally long.
    const availableMs = changeAt.getTime() - historyStart.getTime();
    if (availableMs < minimumWindowMs) return { status: "not-enough-data", reason: `less than ${minimumWindowMs / 60_000} minutes of telemetry before the change` };
    return {
      status: "matched",
      before: { from: historyStart, to: changeAt },
      after: { from: changeAt, to: new Date(changeAt.getTime() + availableMs) },
      matching: "adjacent",
    };
  }
  return { status: "matched", before: { from: adjacentFrom, to: changeAt }, after, matching: "adjacent" };
}
