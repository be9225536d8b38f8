// Every guard's reading of one wave with the basis it rests on, and the comparison's metrics with
// their change and interval. Policy rollout waves (wave-card.tsx) and agent upgrade waves
// (agent-upgrades/components/rollout-detail.tsx) show their guards with this one component.
import { guardLabels, type GuardReading } from "@spindle/domain";
import { formatDateTime } from "@/lib/format";

export const guardStatusText = {
  pass: "pass",
  trip: "tripped",
  "not-enough-data": "not enough data",
  "not-measured": "not measured",
} as const;

function formatChange(change: number | null, scale: "relative" | "absolute" | null): string {
  if (change === null) return "—";
  return scale === "relative"
    ? `${change >= 0 ? "+" : ""}${(change * 100).toFixed(1)} %`
    : `${change >= 0 ? "+" : ""}${change.toPrecision(3)}`;
}

export function GuardReadings({ readings, readingsAt }: { readings: readonly GuardReading[]; readingsAt: string | null }) {
  if (readings.length === 0) return null;
  return (
    <div className="grid gap-2" data-testid="guard-readings">
      <p className="text-xs text-muted-foreground">Guards{readingsAt ? `, read ${formatDateTime(readingsAt)}` : ""}</p>
      {readings.map((reading) => (
        <div
          key={reading.guard}
          className="grid gap-1 rounded-md border p-2 text-sm"
          data-testid="guard-reading"
          data-guard={reading.guard}
          data-status={reading.status}
        >
          <span className="flex items-center justify-between gap-2">
            <span className="font-medium">{guardLabels[reading.guard] ?? reading.guard}</span>
            <span
              className={
                reading.status === "trip"
                  ? "text-destructive"
                  : reading.status === "not-enough-data"
                    ? "text-warning"
                    : "text-muted-foreground"
              }
            >
              {guardStatusText[reading.status]}
            </span>
          </span>
          <span data-testid="guard-summary">{reading.summary}</span>
          <span className="text-xs text-muted-foreground" data-testid="guard-basis">
            Basis: {reading.basis}
          </span>
          {reading.metrics.length > 0 ? (
            <table className="mt-1 w-full text-xs">
              <thead>
                <tr className="text-left text-muted-foreground">
                  <th>Metric</th>
                  <th>Change vs expected</th>
                  <th>Interval</th>
                  <th>Servers</th>
                  <th>Reading</th>
                </tr>
              </thead>
              <tbody>
                {reading.metrics.map((metric) => (
                  <tr
                    key={metric.key}
                    data-testid="guard-metric"
                    data-metric={metric.key}
                    data-status={metric.status}
                    title={metric.detail}
                  >
                    <td>{metric.label}</td>
                    <td>{formatChange(metric.change, metric.scale)}</td>
                    <td data-testid="guard-metric-interval">
                      {metric.interval
                        ? `${formatChange(metric.interval.low, metric.scale)} to ${formatChange(metric.interval.high, metric.scale)} (${Math.round(metric.interval.confidence * 100)} %)`
                        : "—"}
                    </td>
                    <td>
                      {metric.treated} vs {metric.control}
                    </td>
                    <td>{guardStatusText[metric.status]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ))}
    </div>
  );
}
