import { Badge } from "@/components/ui/badge";
import type { RunStatus } from "../types/proof-run";

const variants: Record<RunStatus, "success" | "secondary" | "destructive" | "outline"> = {
  queued: "outline",
  running: "secondary",
  cancelling: "outline",
  cancelled: "outline",
  succeeded: "success",
  failed: "destructive",
};

export function RunStatusBadge({ status }: { status: RunStatus }) {
  return (
    <Badge variant={variants[status]} data-testid="run-status" data-status={status}>
      {status}
    </Badge>
  );
}
