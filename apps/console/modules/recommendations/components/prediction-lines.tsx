import type { Confidence, Prediction, RealisedEffect } from "@spindle/domain";
import { formatDateTime } from "@/lib/format";

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;

export function PredictionLines({ prediction, confidence }: { prediction: Prediction; confidence: Confidence }) {
  return (
    <dl className="grid gap-1 text-sm">
      <div data-testid="recommendation-prediction">
        <dt className="inline font-medium">Predicted: </dt>
        <dd className="inline">{prediction.summary}</dd>
      </div>
      <div className="text-muted-foreground">
        <dt className="inline">Basis: </dt>
        <dd className="inline">{prediction.basis}</dd>
      </div>
      <div className="text-muted-foreground" data-testid="recommendation-confidence" data-level={confidence.level}>
        <dt className="inline">Confidence: </dt>
        <dd className="inline">
          {confidence.level}
          {confidence.tolerance !== null ? ` (±${confidence.tolerance * 100} points)` : ""}: {confidence.reason}
        </dd>
      </div>
    </dl>
  );
}

const signedPoints = (fraction: number) => `${fraction >= 0 ? "+" : "−"}${Math.abs(fraction * 100).toFixed(1)} points`;
const answerTone = { consistent: "text-success", inconsistent: "text-destructive", inconclusive: "text-muted-foreground" } as const;
const methodName = {
  "previous-days": "the same window on the previous days",
  "block-bootstrap": "the previous day, minute by minute (block bootstrap)",
} as const;

/** The realised change beside the predicted change, each with its uncertainty, and the answer; or why there is none yet. */
export function RealisedLine({ realised, appliedAt }: { realised: RealisedEffect | null; appliedAt: string }) {
  if (realised === null) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="recommendation-realised" data-status="pending">
        Realised effect: not measured yet. The worker measures the read cache's hit ratio a window after the agent confirms the policy
        applied on {formatDateTime(appliedAt)}, and holds the realised change against the predicted change.
      </p>
    );
  }
  if (realised.status === "not-measured") {
    return (
      <p className="text-sm text-muted-foreground" data-testid="recommendation-realised" data-status="not-measured">
        Realised effect: not measured: {realised.reason}.
      </p>
    );
  }
  if (realised.status === "measured") {
    // Written before realised changes were compared: the level after against the predicted level.
    const verdict =
      realised.withinConfidence === null
        ? ""
        : realised.withinConfidence
          ? ", within the stated confidence"
          : ", outside the stated confidence";
    return (
      <p className="text-sm" data-testid="recommendation-realised" data-status="measured" data-within={String(realised.withinConfidence)}>
        <span className="font-medium">Realised (level only, measured before changes were compared): </span>
        read hit ratio {realised.before !== null ? `${percent(realised.before)} → ` : ""}
        {percent(realised.after)}
        {realised.predicted !== null ? ` (predicted ${percent(realised.predicted)}${verdict})` : ""}
        <span className="text-muted-foreground">
          ; {realised.basis}, {formatDateTime(realised.windows.after.from)} – {formatDateTime(realised.windows.after.to)}
        </span>
      </p>
    );
  }
  const { realised: measured, predicted } = realised;
  return (
    <div className="grid gap-0.5 text-sm" data-testid="recommendation-realised" data-status="judged" data-answer={realised.answer}>
      <p>
        <span className="font-medium">Realised: </span>
        <span className={answerTone[realised.answer]} data-testid="recommendation-realised-answer">
          {realised.answer}
        </span>
        <span className="text-muted-foreground"> with the prediction: {realised.reason}.</span>
      </p>
      <p data-testid="recommendation-realised-change">
        Realised change:{" "}
        {measured.change !== null && measured.before !== null ? (
          <>
            read hit ratio {percent(measured.before)} → {percent(measured.after)}, {signedPoints(measured.change)}
            {measured.interval
              ? ` (${Math.round(measured.interval.confidence * 100)} % interval ${signedPoints(measured.interval.low)} to ${signedPoints(measured.interval.high)}, against ${methodName[measured.method!]})`
              : ""}
          </>
        ) : (
          <>read hit ratio {percent(measured.after)} after the change; no change measured</>
        )}
      </p>
      <p data-testid="recommendation-predicted-change">
        Predicted change:{" "}
        {predicted.change !== null && predicted.before !== null && predicted.after !== null ? (
          <>
            {percent(predicted.before)} → {percent(predicted.after)}, {signedPoints(predicted.change)}
            {predicted.range
              ? ` (range ${signedPoints(predicted.range.low)} to ${signedPoints(predicted.range.high)}, the confidence's tolerance)`
              : ""}
          </>
        ) : (
          "none in numbers"
        )}
      </p>
      <p className="text-xs text-muted-foreground">
        {measured.basis}; {formatDateTime(realised.windows.after.from)} – {formatDateTime(realised.windows.after.to)}.
      </p>
    </div>
  );
}
