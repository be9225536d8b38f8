import { describeMeasured, type CausedStorageReads, type Measured, type MetricVerdict } from "@spindle/domain";
import { formatNumber } from "@/lib/format";
import { formatInterval } from "../lib/format-caused";
import { Badge } from "@/components/ui/badge";
import { formatDateTime } from "@/lib/format";
import { formatInUnit } from "../lib/format-gains";
import { describeVerdict, methodNames } from "../lib/format-verdict";
import type { ServerVerdict, VerdictLook } from "../types/verdict";

const verdictText = { better: "better", worse: "worse", "no-measurable-change": "no measurable change" } as const;
const verdictTone = { better: "text-success", worse: "text-destructive", "no-measurable-change": "text-muted-foreground" } as const;

function MetricRow({ result }: { result: MetricVerdict }) {
  const { metric } = result;
  if (result.status === "not-enough-data") {
    return (
      <li data-testid={`verdict-${metric.key}`} data-verdict="not-enough-data" className="text-sm">
        <span className="font-medium">{metric.label}:</span>{" "}
        <span className="text-muted-foreground">not enough data ({result.reason})</span>
      </li>
    );
  }
  const value = (v: number) => formatInUnit(v, metric.unit);
  return (
    <li
      data-testid={`verdict-${metric.key}`}
      data-verdict={result.verdict}
      data-method={result.method}
      data-stage={result.stage}
      className="grid gap-0.5 text-sm"
    >
      <span>
        <span className="font-medium">{metric.label}:</span>{" "}
        <span className={verdictTone[result.verdict]} data-testid={`verdict-${metric.key}-text`}>
          {verdictText[result.verdict]}
          {result.stage === "provisional" ? " (provisional)" : ""}
        </span>
        <span className="text-muted-foreground">
          {" "}
          — {value(result.after)} against {value(result.expected)} expected without the change; {describeVerdict(result)}
        </span>
      </span>
      <span className="text-xs text-muted-foreground" data-testid={`verdict-${metric.key}-method`}>
        Method: {methodNames[result.method]}: {result.basis}; {metric.source}.
      </span>
    </li>
  );
}

function LookLine({ look }: { look: VerdictLook }) {
  if (look.status === "too-early") {
    return (
      <p className="text-sm text-muted-foreground" data-testid="verdict-not-enough-data">
        Not enough data: {look.reason} (at {formatDateTime(look.firstAt)}); the final verdict is read at {formatDateTime(look.finalAt)}.
      </p>
    );
  }
  const hours = (minutes: number) => (minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`);
  return (
    <p className="text-xs text-muted-foreground" data-testid="verdict-look" data-stage={look.stage}>
      {look.stage === "final" ? (
        <>Final verdict at the {hours(look.horizonMinutes)} horizon</>
      ) : (
        <>
          Provisional reading at {hours(look.afterMinutes)} of the {hours(look.horizonMinutes)} horizon (final at{" "}
          {formatDateTime(look.finalAt)}); an early reading calls a change only at a family-wise alpha of {look.alpha * 100} %, so reading
          the page again does not inflate the error
        </>
      )}
      . After: {formatDateTime(look.after.from)} – {formatDateTime(look.after.to)}, against the same window on the previous days
      {look.controlServers > 0 ? (
        <>
          , or {look.controlServers} servers not yet changed over {look.before.description} ({formatDateTime(look.before.from)} –{" "}
          {formatDateTime(look.before.to)})
        </>
      ) : null}
      . Minutes slower than 5× the server's median minute count as 5× (stalls), and the metrics are corrected together (Holm).
    </p>
  );
}

/** What the read cache caused over the after window, against its control group: beside the verdict, not part of it. */
function CausedLine({ caused }: { caused: Measured<CausedStorageReads> }) {
  return (
    <p className="text-sm" data-testid="verdict-read-cache-caused" data-status={caused.status} title={describeMeasured(caused)}>
      <span className="font-medium">Storage reads the read cache caused to be saved in the after window:</span>{" "}
      {caused.status === "measured" ? (
        <>
          {formatNumber(caused.value.savedIos)} reads{" "}
          <span className="text-muted-foreground">({formatInterval(caused.value.interval, "{io}")}, against its control group)</span>
        </>
      ) : (
        <span className="text-muted-foreground">not measured: {caused.reason}</span>
      )}
    </p>
  );
}

/** The before/after comparison of one server around one applied change: when it is read, and each metric's answer with its method. */
export function VerdictView({ verdict, showHost = false }: { verdict: ServerVerdict; showHost?: boolean }) {
  const { change, look } = verdict;
  return (
    <div className="grid gap-2" data-testid="verdict" data-server={verdict.hostname}>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        {showHost ? <span className="font-mono font-medium">{verdict.hostname}</span> : null}
        {change.status === "known" ? (
          <span>
            <Badge variant="secondary">{change.cause}</Badge> applied {formatDateTime(change.appliedAt)}
          </span>
        ) : (
          <span className="text-muted-foreground" data-testid="verdict-no-change">
            No verdict: {change.reason}.
          </span>
        )}
      </div>
      {look ? <LookLine look={look} /> : null}
      {look?.status === "look" ? (
        <ul className="grid gap-2">
          {verdict.metrics.map((result) => (
            <MetricRow key={result.metric.key} result={result} />
          ))}
        </ul>
      ) : null}
      {verdict.readCacheCaused ? <CausedLine caused={verdict.readCacheCaused} /> : null}
    </div>
  );
}
