import { Badge } from "@/components/ui/badge";
import type { AttemptState, RolloutStatus } from "../types/agent-upgrades";

const attemptLabels: Record<AttemptState, string> = {
  waiting: "waiting for its wave",
  offered: "offered",
  downloading: "downloading",
  installing: "installing",
  installed: "installed",
  failed: "failed",
  rolled_back: "rolled back",
  skipped: "skipped",
  cancelled: "cancelled",
};

export function AttemptStateBadge({ state }: { state: AttemptState }) {
  const variant = state === "installed" ? "success" : state === "failed" || state === "rolled_back" ? "destructive" : "secondary";
  return (
    <Badge variant={variant} data-testid="attempt-state" data-state={state}>
      {attemptLabels[state]}
    </Badge>
  );
}

export function RolloutStatusBadge({ status }: { status: RolloutStatus }) {
  const variant = status === "completed" ? "success" : status === "paused" ? "warning" : status === "cancelled" ? "outline" : "secondary";
  return (
    <Badge variant={variant} data-testid="rollout-status" data-status={status}>
      {status}
    </Badge>
  );
}
