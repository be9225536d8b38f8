import type { MetricVerdict } from "@spindle/domain";
import { Badge } from "@/components/ui/badge";
import { formatDateTime } from "@/lib/format";
import { formatInUnit } from "../lib/format-gains";
import type { ServerVerdict } from "../types/verdict";

const verdictText = { better: "better", worse: "worse", "no-measurable-change": "no measurable change" } as const;
const verdictTone = { better: "text-success", worse: "text-destructive", "no-measurable-change": "text-muted-foreground" } as const;

function MetricRow({ result }: { result: MetricVerdict }) {
  const { metric } = result;
  if (result.status === "not-enough-data") {
    return (
      <li data-testid={`verdict-${metric.key}`} data-verdict="not-enough-data" className="text-sm">
        <span className="font-medium">{metric.label}:</span> <span className="text-muted-foreground">not enough data ({result.reason})</span>
      </li>
    );
  }
  const value = (v: number) => formatInUnit(v, metric.unit);
  const { interval } = result;
  return (
    <li data-testid={`verdict-${metric.key}`} data-verdict={result.verdict} className="text-sm">
      <span className="font-medium">{metric.label}:</span>{" "}
      <span className={verdictTone[result.verdict]} data-testid={`verdict-${metric.key}-text`}>{verdictText[result.verdict]}</span>
      <span className="text-muted-foreground">
        {" "}— {value(result.before.value)} → {value(result.after.value)}; difference {value(result.difference)}, {Math.round(interval.confidence * 100)} % interval{" "}
        [{value(interval.low)}, {value(interval.high)}] ({interval.iterations.toLocaleString("en-US")} bootstrap resamples of 1-minute intervals;{" "}
        {result.before.units} before, {result.after.units} after; {Math.round(result.before.denominator).toLocaleString("en-US")} →{" "}
        {Math.round(result.after.denominator).toLocaleString("en-US")} {metric.denominatorUnit}; {metric.source})
      </span>
    </li>
  );
}

/** The before/after comparison of one server around one applied change, with its windows. */
export function VerdictView({ verdict, showHost = false }: { verdict: ServerVerdict; showHost?: boolean }) {
  const { change, windows } = verdict;
  return (
    <div className="grid gap-2" data-testid="verdict" data-server={verdict.hostname}>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        {showHost ? <span className="font-mono font-medium">{verdict.hostname}</span> : null}
        {change.status === "known" ? (
          <span>
            <Badge variant="secondary">{change.cause}</Badge> applied {formatDateTime(change.appliedAt)}
          </span>
        ) : (
          <span className="text-muted-foreground" data-testid="verdict-no-change">No verdict: {change.reason}.</span>
        )}
      </div>
      {windows?.status === "not-enough-data" ? (
        <p className="text-sm text-muted-foreground" data-testid="verdict-not-enough-data">Not enough data: {windows.reason}.</p>
      ) : null}
      {windows?.status === "matched" ? (
        <>
          <p className="text-xs text-muted-foreground" data-testid="verdict-windows">
            Before {formatDateTime(windows.before.from)} – {formatDateTime(windows.before.to)}, after {formatDateTime(windows.after.from)} –{" "}
            {formatDateTime(windows.after.to)} ({windows.matching === "same-hours-previous-day" ? "the same hours of the previous day" : "the equally long window right before the change"}).
          </p>
          <ul className="grid gap-1">
            {verdict.metrics.map((result) => (
              <MetricRow key={result.metric.key} result={result} />
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
