import { formatNumber } from "@/lib/format";
import type { AlertValue } from "../types/alerts";

/** "73.5 ops/s > 50 ops/s", with what it was measured from; no data is said, never shown as 0. */
export function AlertValueText({ value, showBasis = false }: { value: AlertValue; showBasis?: boolean }) {
  const unit = value.unit ? ` ${value.unit}` : "";
  return (
    <div className="min-w-0" data-testid="alert-value" data-value={value.value ?? ""}>
      <span className="font-medium tabular-nums" title={value.basis}>
        {value.value === null ? <span className="text-muted-foreground">not measured</span> : `${formatNumber(value.value)}${unit}`}
      </span>
      <span className="text-muted-foreground">
        {" "}
        (threshold {value.comparison} {formatNumber(value.threshold)}
        {unit})
      </span>
      {showBasis ? (
        <div className="text-xs text-muted-foreground" data-testid="alert-basis">
          {value.basis}
        </div>
      ) : null}
    </div>
  );
}
