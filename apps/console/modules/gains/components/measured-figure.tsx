import type { Measured } from "@spindle/domain";
import { describeMeasured } from "@spindle/domain";
import { cn } from "@/lib/utils";

/**
 * A figure with its basis: the value, and under it the line saying what it was measured from
 * (also the hover text), or "not measured" and why. Never a 0 for a missing input.
 */
export function MeasuredFigure<T>({
  figure,
  format,
  detail,
  testId,
  className,
}: {
  figure: Measured<T>;
  format: (value: T) => string;
  /** A second line under the value (an interval, a bound), when measured. */
  detail?: (value: T) => string | null;
  testId?: string;
  className?: string;
}) {
  const basis = describeMeasured(figure);
  const more = figure.status === "measured" && detail ? detail(figure.value) : null;
  return (
    <div className={cn("min-w-0", className)} data-testid={testId} data-status={figure.status} title={basis}>
      <div
        className={cn("text-lg font-semibold tabular-nums", figure.status === "not-measured" && "text-muted-foreground")}
        data-testid={testId ? `${testId}-value` : undefined}
      >
        {figure.status === "measured" ? format(figure.value) : "not measured"}
      </div>
      {more ? (
        <div className="text-xs tabular-nums" data-testid={testId ? `${testId}-detail` : undefined}>
          {more}
        </div>
      ) : null}
      <div className="text-xs text-muted-foreground" data-testid={testId ? `${testId}-basis` : undefined}>
        {basis}
      </div>
    </div>
  );
}
