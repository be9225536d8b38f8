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
        <dd className="inline">{confidence.level}{confidence.tolerance !== null ? ` (±${confidence.tolerance * 100} points)` : ""}: {confidence.reason}</dd>
      </div>
    </dl>
  );
}

/** The realised effect beside the prediction, or why there is none yet. */
export function RealisedLine({ realised, appliedAt }: { realised: RealisedEffect | null; appliedAt: string }) {
  if (realised === null) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="recommendation-realised" data-status="pending">
        Realised effect: not measured yet. The worker measures the read cache's hit ratio a window after the agent confirms the policy applied on {formatDateTime(appliedAt)}.
      </p>
    );
  }
  if (realised.status === "not-measured") {
    return <p className="text-sm text-muted-foreground" data-testid="recommendation-realised" data-status="not-measured">Realised effect: not measured: {realised.reason}.</p>;
  }
  const verdict = realised.withinConfidence === null ? "" : realised.withinConfidence ? ", within the stated confidence" : ", outside the stated confidence";
  return (
    <p className="text-sm" data-testid="recommendation-realised" data-status="measured" data-within={String(realised.withinConfidence)}>
      <span className="font-medium">Realised: </span>
      read hit ratio {realised.before !== null ? `${percent(realised.before)} → ` : ""}{percent(realised.after)}
      {realised.predicted !== null ? ` (predicted ${percent(realised.predicted)}${verdict})` : ""}
      <span className="text-muted-foreground">; {realised.basis}, {formatDateTime(realised.windows.after.from)} – {formatDateTime(realised.windows.after.to)}</span>
    </p>
  );
}
