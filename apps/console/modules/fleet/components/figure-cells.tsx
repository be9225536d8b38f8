import { Badge } from "@/components/ui/badge";
import type { CausedFigure, LatencyFigure } from "../types/fleet";
import type { FleetPolicyState } from "../types/fleet-query";

function formatSeconds(seconds: number): string {
  if (seconds >= 1) return `${Number(seconds.toPrecision(3))} s`;
  if (seconds >= 1e-3) return `${Number((seconds * 1e3).toPrecision(3))} ms`;
  return `${Number((seconds * 1e6).toPrecision(3))} µs`;
}

/** A p99 read latency: the bucket's edge ("≤ 1.02 ms"), its basis on hover, or "not measured" with the reason. */
export function LatencyCell({ figure, testId }: { figure: LatencyFigure; testId: string }) {
  if (figure.status === "not-measured") {
    return (
      <span className="text-xs text-muted-foreground" title={figure.reason} data-testid={testId} data-status="not-measured">
        not measured
      </span>
    );
  }
  const text = figure.upperSeconds === null ? `> ${formatSeconds(figure.lowerSeconds)}` : `≤ ${formatSeconds(figure.upperSeconds)}`;
  return (
    <span
      className="tabular-nums"
      title={figure.basis}
      data-testid={testId}
      data-status="measured"
      data-upper-seconds={figure.upperSeconds ?? ""}
    >
      {text}
    </span>
  );
}

/** A caused figure with its interval, or "not measured" with why (never a descriptive number in its place). */
export function CausedCell({ figure, testId }: { figure: CausedFigure; testId: string }) {
  if (figure.status === "not-measured") {
    return (
      <span className="text-xs text-muted-foreground" title={figure.reason} data-testid={testId} data-status="not-measured">
        not measured
      </span>
    );
  }
  return (
    <span className="tabular-nums" title={figure.basis} data-testid={testId} data-status="measured">
      {figure.label}: {figure.value} {figure.unit} ({figure.low}–{figure.high})
    </span>
  );
}

const policyLooks: Record<FleetPolicyState, { label: string; variant: "success" | "secondary" | "destructive" | "warning" }> = {
  applied: { label: "Applied", variant: "success" },
  pending: { label: "Pending", variant: "secondary" },
  failed: { label: "Failed", variant: "destructive" },
  invalid: { label: "Invalid", variant: "warning" },
};

export function PolicyStateBadge({ state }: { state: FleetPolicyState }) {
  const look = policyLooks[state];
  return (
    <Badge variant={look.variant} data-testid="fleet-policy-state" data-state={state}>
      {look.label}
    </Badge>
  );
}
