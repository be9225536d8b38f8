import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatNumber } from "../lib/format";
import type { ProofRunReport } from "../types/proof-run";

/** How the passes ran and why they stopped, and what the intervals mean: the basis of every change on the page. */
export function RunBasis({ report }: { report: ProofRunReport }) {
  const a = report.alternation;
  return (
    <Card data-testid="run-basis">
      <CardHeader>
        <CardTitle>How this run compared</CardTitle>
        <CardDescription>
          {a
            ? `${report.warmUpPasses} warm-up pass (features off, kept below, never compared), then ${a.blocks} block${a.blocks === 1 ? "" : "s"} of passes off, on, on, off.`
            : `Passes ${report.passOrder.join(", ")}: this report comes from an agent that formed no intervals, so it states no change.`}
        </CardDescription>
      </CardHeader>
      {a ? (
        <CardContent className="grid gap-1 text-sm">
          <p data-testid="run-target">
            Target: every step&apos;s change known within ±{a.targetHalfWidthPercent} %
            {report.timeLimitSeconds ? `, within the time limit of ${report.timeLimitSeconds} s` : ""}.
            {a.widestHalfWidthPercent !== null ? ` Widest step interval at the end: ±${formatNumber(a.widestHalfWidthPercent)} %.` : ""}
          </p>
          <p data-testid="run-stop" data-reason={a.stopReason}>
            Stopped adding blocks: {a.stop}.
          </p>
          <p className="text-xs text-muted-foreground">
            Intervals: {a.confidencePercent} % for all {a.intervalsInFamily} step and overall changes together (each at{" "}
            {Math.round((100 - (100 - a.confidencePercent) / a.intervalsInFamily) * 100) / 100} %), so a run with many steps does not find a
            change in one by chance; {a.method}. A change whose interval includes 0 reads &ldquo;no measurable difference&rdquo;. The read
            and write-path intervals are 95 % each.
          </p>
        </CardContent>
      ) : null}
    </Card>
  );
}
