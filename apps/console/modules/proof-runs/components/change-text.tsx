import { cn } from "@/lib/utils";
import { differenceText } from "../lib/report-view";
import type { Difference } from "../types/proof-run";

/**
 * A change as the report states it: the figure and its interval when the interval excludes 0,
 * "no measurable difference" with the interval when it includes 0, "not measured" with the
 * reason (on hover and for screen readers) when there is none.
 */
export function ChangeText({ difference, unit = "%", className }: { difference: Difference; unit?: string; className?: string }) {
  const text = differenceText(difference, unit);
  const [figure, interval] = text.includes(" (") ? [text.slice(0, text.indexOf(" (")), text.slice(text.indexOf(" (") + 1)] : [text, null];
  return (
    <span
      className={cn("inline-flex flex-col items-end", className)}
      data-testid="change"
      data-status={difference.status}
      title={difference.reason || undefined}
    >
      <span className={difference.status === "measured" ? "font-medium" : "text-muted-foreground"}>{figure}</span>
      {interval ? <span className="text-xs text-muted-foreground">{interval}</span> : null}
      {difference.status === "not-measured" && difference.reason ? <span className="sr-only">: {difference.reason}</span> : null}
    </span>
  );
}
