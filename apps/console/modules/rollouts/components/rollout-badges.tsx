import { Badge } from "@/components/ui/badge";
import type { RolloutServerState, RolloutStatus, WaveState } from "../types/rollout";

type Variant = "default" | "secondary" | "success" | "warning" | "destructive" | "outline";

const statusLook: Record<RolloutStatus, [string, Variant]> = {
  running: ["running", "default"],
  paused: ["paused", "warning"],
  completed: ["completed", "success"],
  aborted: ["aborted", "secondary"],
};
const waveLook: Record<WaveState, [string, Variant]> = {
  pending: ["waiting", "outline"],
  applying: ["applying", "default"],
  watching: ["guard window", "default"],
  holding: ["holding", "warning"],
  passed: ["passed", "success"],
  rolled_back: ["rolled back", "destructive"],
};
const serverLook: Record<RolloutServerState, [string, Variant]> = {
  held: ["previous policy", "outline"],
  pushed: ["sent", "default"],
  applied: ["applied", "success"],
  failed: ["FAILED", "destructive"],
  rolled_back: ["rolled back", "destructive"],
};

export function RolloutStatusBadge({ status }: { status: RolloutStatus }) {
  const [label, variant] = statusLook[status];
  return (
    <Badge variant={variant} data-testid="rollout-status" data-status={status}>
      {label}
    </Badge>
  );
}

export function WaveStateBadge({ state }: { state: WaveState }) {
  const [label, variant] = waveLook[state];
  return (
    <Badge variant={variant} data-testid="wave-state" data-state={state}>
      {label}
    </Badge>
  );
}

export function ServerStateBadge({ state }: { state: RolloutServerState }) {
  const [label, variant] = serverLook[state];
  return (
    <Badge variant={variant} data-testid="rollout-server-state" data-state={state}>
      {label}
    </Badge>
  );
}
